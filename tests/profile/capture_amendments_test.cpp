// Amended captures (capture_format.h, amended_*): sections written byte by byte from the
// format, appended to a capture as `quartz run` appends the runtime's log
// (capture::take_amendments). Each item replaces its key's or adds one, a later one wins,
// records of more runnable bins fold into the file's last, and malformed amendments are a
// CaptureError, never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/shared_capture.h"
#include "profile/capture.h"
#include "tests/testing/capture_file_fixture.h"

namespace quartz::profile {
namespace {

using capture::SectionType;
using test_support::CaptureFile;
using test_support::PayloadWriter;
using ::testing::HasSubstr;

const std::string kAmendedName = "amended.qz";

// A full record of `bins` runnable bins, each value `v` but the runnable ones, which are
// 1, 2, 3... along each row.
void write_full(PayloadWriter& w, uint32_t processors, uint32_t bins, double v) {
  for (uint32_t part = 0; part < 4; ++part) {
    for (uint32_t i = 0; i <= processors; ++i) w.f64(v);
  }
  for (uint32_t i = 0; i < 2 * capture::kStateCount; ++i) w.f64(v);
  for (uint32_t s = 0; s < capture::kStateCount; ++s) {
    for (uint32_t k = 0; k < bins; ++k) w.f64(k + 1);
  }
}

std::vector<unsigned char> section(SectionType type, const PayloadWriter& payload) {
  std::vector<unsigned char> bytes(sizeof(capture::SectionHeader));
  capture::SectionHeader h{static_cast<uint32_t>(type), 0, payload.bytes().size(), 0, 0};
  std::memcpy(bytes.data(), &h, sizeof h);
  bytes.insert(bytes.end(), payload.bytes().begin(), payload.bytes().end());
  return bytes;
}

// The capture with `log` taken in as `quartz run` does, then sealed.
std::vector<unsigned char> amended(std::vector<unsigned char> capture,
                                   const std::vector<unsigned char>& log) {
  const size_t base = capture.size();
  capture.resize(base + log.size());
  const size_t size = capture::take_amendments(capture.data(), base, log.data(), log.size());
  capture.resize(size);
  capture::seal_capture(capture.data(), capture.size());
  return capture;
}

void append(std::vector<unsigned char>& log, const std::vector<unsigned char>& more) {
  log.insert(log.end(), more.begin(), more.end());
}

TEST(AmendedCapture, ItemsReplaceTheirKeysOrAddNewOnes) {
  const profile::Run run = test_support::sample_run();  // 3 processors, 4 runnable bins
  ASSERT_GE(run.threads.size(), 2u);
  ASSERT_GE(run.objects.size(), 1u);
  ASSERT_GE(run.procedures.size(), 1u);
  ASSERT_GE(run.contexts.size(), 2u);
  const uint32_t P = run.processors, R = run.runnable_bins;
  std::vector<unsigned char> log;

  PayloadWriter keys;
  keys.u32(1);
  keys.str(capture::run_keys::kElapsedNs);
  keys.str("7000000000");
  append(log, section(SectionType::amended_run, keys));

  PayloadWriter threads;  // an existing thread with two more bins, and a new one
  threads.u32(R + 2);
  threads.u32(2);
  for (const uint32_t index : {run.threads[1].index, 77u}) {
    threads.u32(index);
    threads.u32(run.threads[0].index);
    threads.i32(4242);
    threads.str("late");
    for (uint64_t v : {0x1000ull, 0x2000ull, 5ull, 0ull, 123456789ull, 11ull}) threads.u64(v);
    threads.f64(0.5);
    threads.f64(0.25);
    write_full(threads, P, R + 2, 3.0);
  }
  append(log, section(SectionType::amended_threads, threads));

  PayloadWriter objects;
  objects.u32(R);
  objects.u32(2);
  for (const uint64_t address : {run.objects[0].address, uint64_t{0xD000}}) {
    objects.u64(address);
    objects.u32(capture::kMutex);
    objects.str("amended");
    objects.u64(0x401000);
    objects.f64(0.1);
    objects.f64(0.2);
    objects.f64(0.75);
    objects.u32(2);
    objects.f64(0.5);
    objects.f64(0.25);
    write_full(objects, P, R, 2.0);
  }
  append(log, section(SectionType::amended_objects, objects));

  PayloadWriter procedures;
  procedures.u32(R);
  procedures.u32(2);
  for (const uint64_t address : {run.procedures[0].address, uint64_t{0xE000}}) {
    procedures.u64(address);
    write_full(procedures, P, R, 4.0);
  }
  append(log, section(SectionType::amended_procedures, procedures));

  PayloadWriter contexts;  // context 1 again, then a new one under it
  const ContextInfo& one = run.contexts[1];
  const auto new_id = static_cast<uint32_t>(run.contexts.size());
  contexts.u32(2);
  for (const auto& [id, parent, address] :
       {std::tuple{1u, one.parent, one.address}, std::tuple{new_id, 1u, uint64_t{0xE000}}}) {
    contexts.u32(id);
    contexts.u32(parent);
    contexts.u64(address);
    contexts.u32(id == 1 ? one.kind : capture::kProcedure);
    for (size_t i = 0; i < capture::context_record_size(P); ++i) contexts.f64(id == 1 ? 6.0 : 8.0);
    contexts.f64(0.125);
    contexts.f64(0.0625);
  }
  append(log, section(SectionType::amended_contexts, contexts));

  PayloadWriter program;
  program.u32(R);
  write_full(program, P, R, 9.0);
  append(log, section(SectionType::amended_program, program));

  PayloadWriter later;  // a later amendment of the same key wins
  later.u32(1);
  later.str(capture::run_keys::kElapsedNs);
  later.str("8000000000");
  append(log, section(SectionType::amended_run, later));

  const profile::Run read = parse_capture(amended(CaptureFile::of(run).bytes(), log), kAmendedName);
  EXPECT_EQ(read.text(capture::run_keys::kElapsedNs), "8000000000");
  EXPECT_EQ(read.text(capture::run_keys::kCountsElapsedNs),
            run.text(capture::run_keys::kElapsedNs));

  ASSERT_EQ(read.threads.size(), run.threads.size() + 1);
  const ThreadInfo& t = read.threads[1];
  EXPECT_EQ(t.name, "late");
  EXPECT_EQ(t.cpu_ns, 123456789u);
  EXPECT_EQ(t.calls, run.threads[1].calls) << "counts stay as the capture had them";
  EXPECT_EQ(t.starved_startup_s, 0.5);
  EXPECT_EQ(t.record.normalized_self[0], 3.0);
  // Bins 1..6 into the file's 4: the last holds 4 + 5 + 6.
  EXPECT_THAT(t.record.runnable[0], ::testing::ElementsAre(1.0, 2.0, 3.0, 15.0));
  EXPECT_EQ(read.threads.back().index, 77u);
  EXPECT_EQ(read.threads.back().tid, 4242);

  ASSERT_EQ(read.objects.size(), run.objects.size() + 1);
  EXPECT_EQ(read.objects[0].hold_s, 0.75);
  EXPECT_EQ(read.objects[0].acquisitions, run.objects[0].acquisitions);
  EXPECT_EQ(read.objects[0].id, 1u);
  EXPECT_EQ(read.objects.back().address, 0xD000u);
  EXPECT_EQ(read.objects.back().id, read.objects.size());
  EXPECT_EQ(read.objects.back().queue, (std::vector<double>{0.5, 0.25}));

  ASSERT_EQ(read.procedures.size(), run.procedures.size() + 1);
  EXPECT_EQ(read.procedures[0].record.processor_self[0], 4.0);
  EXPECT_EQ(read.procedures.back().address, 0xE000u);

  ASSERT_EQ(read.contexts.size(), run.contexts.size() + 1);
  EXPECT_EQ(read.processor_of(1)[0], 6.0);
  EXPECT_EQ(read.contexts[1].own.one_busy_starved, 0.125);
  EXPECT_EQ(read.processor_of(0)[0], run.processor_of(0)[0]) << "a context not amended";
  EXPECT_EQ(read.contexts.back().parent, 1u);
  EXPECT_EQ(read.normalized_of(new_id)[0], 8.0);

  EXPECT_EQ(read.program.normalized_behalf[0], 9.0);
}

// The runtime appends whole sections and then the log's length: a log cut inside a section
// (it cannot be, but a region could be damaged) gives the sections before the cut.
TEST(AmendedCapture, OnlyWholeSectionsOfTheLogAreTaken) {
  const profile::Run run = test_support::sample_run();
  PayloadWriter a, b;
  for (auto* w : {&a, &b}) w->u32(1);
  a.str(capture::run_keys::kElapsedNs);
  a.str("7000000000");
  b.str(capture::run_keys::kSamples);
  b.str("9");
  std::vector<unsigned char> log = section(SectionType::amended_run, a);
  std::vector<unsigned char> second = section(SectionType::amended_run, b);
  log.insert(log.end(), second.begin(), second.end() - 3);
  const profile::Run read = parse_capture(amended(CaptureFile::of(run).bytes(), log), kAmendedName);
  EXPECT_EQ(read.text(capture::run_keys::kElapsedNs), "7000000000");
  EXPECT_EQ(read.text(capture::run_keys::kSamples), run.text(capture::run_keys::kSamples));

  std::vector<unsigned char> foreign = section(SectionType::contexts, a);  // not an amendment
  const std::vector<unsigned char> base = CaptureFile::of(run).bytes();
  EXPECT_EQ(amended(base, foreign), amended(base, {}));
}

TEST(AmendedCapture, MalformedAmendmentsAreErrors) {
  const profile::Run run = test_support::sample_run();
  const std::vector<unsigned char> base = CaptureFile::of(run).bytes();
  auto error = [&](const std::vector<unsigned char>& log) -> std::string {
    try {
      parse_capture(amended(base, log), kAmendedName);
    } catch (const CaptureError& e) {
      return e.what();
    }
    return "";
  };
  const uint32_t P = run.processors;
  auto context = [&](uint32_t id, uint32_t parent, uint64_t address) {
    PayloadWriter w;
    w.u32(1);
    w.u32(id);
    w.u32(parent);
    w.u64(address);
    w.u32(capture::kProcedure);
    for (size_t i = 0; i < capture::context_record_size(P) + 2; ++i) w.f64(1);
    return section(SectionType::amended_contexts, w);
  };
  const auto next = static_cast<uint32_t>(run.contexts.size());
  EXPECT_THAT(error(context(next + 1, capture::kNoParent, 0x10)), HasSubstr("past the next one"));
  EXPECT_THAT(error(context(1, run.contexts[1].parent, run.contexts[1].address + 1)),
              HasSubstr("is another one"));
  EXPECT_THAT(error(context(next, next, 0x10)), HasSubstr("parent comes after it"));
  PayloadWriter bins;
  bins.u32(0);
  write_full(bins, P, 0, 1.0);
  EXPECT_THAT(error(section(SectionType::amended_program, bins)),
              HasSubstr("runnable-thread bins out of range"));
  PayloadWriter nan;
  nan.u32(run.runnable_bins);
  write_full(nan, P, run.runnable_bins, std::numeric_limits<double>::quiet_NaN());
  EXPECT_THAT(error(section(SectionType::amended_program, nan)), HasSubstr("not a finite number"));
  // A section of the capture's own after the amendments.
  PayloadWriter none;
  none.u32(0);
  const std::vector<unsigned char> bytes =
      CaptureFile::of(run)
          .raw_section(uint32_t(SectionType::amended_run), none.bytes())
          .raw_section(uint32_t(SectionType::edges), none.bytes())
          .bytes();
  try {
    parse_capture(bytes, kAmendedName);
    ADD_FAILURE() << "parsed";
  } catch (const CaptureError& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("after the amendments"));
  }
}

}  // namespace
}  // namespace quartz::profile
