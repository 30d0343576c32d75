// parse_capture against captures written byte by byte from capture_format.h
// (capture_file_fixture.h): every field read back, and every kind of damage reported as a
// CaptureError naming the file and the offset, never a crash.
#include "profile/capture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile/mapped_file.h"
#include "tests/testing/capture_file_fixture.h"

namespace quartz::profile {
namespace {

using test_support::CaptureFile;
using test_support::SectionSpan;
using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kName = "sample.qz";

// The CaptureError message for `bytes`, or "" when they parse.
std::string capture_error(const std::vector<unsigned char>& bytes) {
  try {
    parse_capture(bytes, kName);
  } catch (const CaptureError& e) {
    return e.what();
  }
  return "";
}

// The message names the file and the offset, at `offset` when given.
void expect_capture_error(const std::vector<unsigned char>& bytes, const std::string& what,
                          std::optional<size_t> offset = std::nullopt) {
  const std::string message = capture_error(bytes);
  ASSERT_FALSE(message.empty()) << "parsed, expected: " << what;
  EXPECT_THAT(message, StartsWith(kName + ": offset "));
  EXPECT_THAT(message, HasSubstr(what));
  if (offset) {
    EXPECT_THAT(message, StartsWith(kName + ": offset " + std::to_string(*offset) + ": "));
  }
}

const SectionSpan& span_of(const std::vector<SectionSpan>& spans, capture::SectionType type) {
  for (const SectionSpan& s : spans) {
    if (s.type == static_cast<uint32_t>(type)) return s;
  }
  throw std::logic_error("no such section");
}

template <typename T>
void poke(std::vector<unsigned char>& bytes, size_t at, T value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

TEST(ParseCapture, ReadsEveryField) {
  const profile::Run run = test_support::sample_run();
  const profile::Run parsed = parse_capture(CaptureFile::of(run).bytes(), kName);
  test_support::expect_same_run(run, parsed);
}

// Read through a mapping whose pages are given back as the parse goes (as `quartz import`
// reads a file), a capture of more contexts than the parse reads between two give-backs
// parses as it does from memory; the offsets given back stay inside the file.
TEST(ParseCapture, AMappedFileGivenBackAsItIsReadParsesTheSame) {
  profile::Run run = test_support::sample_run();
  for (uint32_t i = static_cast<uint32_t>(run.contexts.size()); i < 100'000; ++i) {
    run.add_context({i, i - 1, 0x555555555200, capture::kProcedure, {}},
                    test_support::context_record(run.processors, i));
  }
  std::vector<SectionSpan> spans;
  const std::vector<unsigned char> bytes = CaptureFile::of(run).bytes(&spans);
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("quartz-mapped-" + std::to_string(getpid()) + ".qcap");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const MappedFile mapped(path.string());
  std::vector<size_t> given_back;
  ParseOptions options;
  options.release = [&](size_t offset) {
    given_back.push_back(offset);
    mapped.release_before(offset);
  };
  const profile::Run parsed = parse_capture(mapped.bytes(), kName, options);
  std::filesystem::remove(path);
  test_support::expect_same_run(parse_capture(bytes, kName), parsed);
  test_support::expect_same_run(run, parsed);
  const SectionSpan& contexts = span_of(spans, capture::SectionType::contexts);
  const auto inside = std::count_if(given_back.begin(), given_back.end(), [&](size_t offset) {
    return offset > contexts.payload_offset &&
           offset < contexts.payload_offset + contexts.payload_bytes;
  });
  EXPECT_EQ(inside, static_cast<long>(run.contexts.size() / 65536)) << "one every 65,536 contexts";
  EXPECT_LE(*std::max_element(given_back.begin(), given_back.end()), bytes.size());
  EXPECT_THROW(MappedFile(std::filesystem::temp_directory_path().string()), CaptureError);
}

TEST(ParseCapture, MinimalCaptureHasOnlyRunAndProgram) {
  const profile::Run run = parse_capture(CaptureFile(1, 2).final(false).bytes(), kName);
  EXPECT_EQ(run.processors, 1u);
  EXPECT_EQ(run.runnable_bins, 2u);
  EXPECT_FALSE(run.final);
  EXPECT_TRUE(run.info.empty());
  EXPECT_TRUE(run.threads.empty());
  EXPECT_TRUE(run.contexts.empty());
  EXPECT_EQ(run.program.processor_self, std::vector<double>(2, 0.0));
  EXPECT_EQ(run.program.runnable[capture::kReady], std::vector<double>(2, 0.0));
}

TEST(ParseCapture, AddsUpRepeatedEdges) {
  const profile::Run run = parse_capture(
      CaptureFile().edge(0x20, 0x30, 2).edge(0, 0x20, 1).edge(0x20, 0x30, 5).bytes(), kName);
  ASSERT_EQ(run.edges.size(), 2u);
  EXPECT_EQ(run.edges[0].caller, 0u);
  EXPECT_EQ(run.edges[0].callee, 0x20u);
  EXPECT_EQ(run.edges[0].calls, 1u);
  EXPECT_EQ(run.edges[1].caller, 0x20u);
  EXPECT_EQ(run.edges[1].callee, 0x30u);
  EXPECT_EQ(run.edges[1].calls, 7u);
}

TEST(ParseCapture, SkipsSectionsOfNewerWriters) {
  const profile::Run run =
      parse_capture(CaptureFile().run_key("host", "h").raw_section(99, {1, 2, 3}).bytes(), kName);
  EXPECT_EQ(run.text("host"), "h");
}

// Objects no snapshot saw come in a section of their own, with their counts only (older
// readers skip it): each goes where the program first used it among the others, ids
// follow that order, and its record is empty (all zero: no allocation for each).
TEST(ParseCapture, ObjectsNoSnapshotSawTakeTheirPlaceInTheOrderOfFirstUse) {
  const profile::Run run = test_support::sample_run();
  const size_t seen = run.objects.size();
  ASSERT_GE(seen, 1u);
  test_support::PayloadWriter unseen;
  unseen.u32(2);
  for (const auto& [after, address] :
       {std::pair<uint32_t, uint64_t>{0, 0xA000}, std::pair<uint32_t, uint64_t>{1, 0xB000}}) {
    unseen.u32(after);
    unseen.u64(address);
    unseen.u32(capture::kMutex);
    unseen.str("");
    unseen.u64(0x401000);  // first site
    unseen.u64(7);         // acquisitions
    unseen.u64(0);
    unseen.u64(0);
    unseen.u64(0);
  }
  const profile::Run read =
      parse_capture(CaptureFile::of(run)
                        .raw_section(uint32_t(capture::SectionType::unseen_objects), unseen.bytes())
                        .bytes(),
                    kName);
  ASSERT_EQ(read.objects.size(), seen + 2);
  EXPECT_EQ(read.objects[0].address, 0xA000u);
  EXPECT_EQ(read.objects[1].address, run.objects[0].address);
  EXPECT_EQ(read.objects[2].address, 0xB000u);
  for (size_t i = 0; i < read.objects.size(); ++i) EXPECT_EQ(read.objects[i].id, i + 1);
  const profile::ObjectInfo& a = read.objects[0];
  EXPECT_EQ(a.acquisitions, 7u);
  EXPECT_EQ(a.first_site, 0x401000u);
  EXPECT_TRUE(a.record.processor_self.empty() && a.record.normalized_behalf.empty());
  for (const auto& hist : a.record.runnable) EXPECT_TRUE(hist.empty());
  EXPECT_TRUE(a.queue.empty());

  test_support::PayloadWriter backwards;  // `after` must not go back, nor past the others
  backwards.u32(1);
  backwards.u32(static_cast<uint32_t>(seen) + 1);
  backwards.u64(0xC000);
  backwards.u32(capture::kMutex);
  backwards.str("");
  for (int i = 0; i < 5; ++i) backwards.u64(0);
  EXPECT_THROW(parse_capture(CaptureFile::of(run)
                                 .raw_section(uint32_t(capture::SectionType::unseen_objects),
                                              backwards.bytes())
                                 .bytes(),
                             kName),
               CaptureError);
}

// Which threads the program named, and the bottom of their own stacks, come in a section
// older readers skip; without it (an older capture) a thread that has its creator's name
// is taken to have inherited it.
TEST(ParseCapture, ThreadRoutinesOrWhoNamedThreadsInferred) {
  profile::Run run = test_support::sample_run();
  run.threads[1].name = run.threads[0].name;  // the worker kept main's name
  const profile::Run older = parse_capture(CaptureFile::of(run).bytes(), kName);
  EXPECT_FALSE(older.threads[1].named);
  EXPECT_TRUE(older.threads[1].routines.empty());
  run.threads[1].name = "solver";
  EXPECT_TRUE(parse_capture(CaptureFile::of(run).bytes(), kName).threads[1].named);

  test_support::PayloadWriter routines;
  routines.u32(2);
  for (uint32_t index : {0u, 1u}) {
    routines.u32(index);
    routines.u32(index == 0 ? 1 : 0);  // main named, the worker not
    routines.u32(index == 0 ? 0 : 2);
    if (index == 1) {
      routines.u64(0x555555555100);
      routines.u64(0x555555555200);
    }
  }
  const profile::Run newer = parse_capture(
      CaptureFile::of(run)
          .raw_section(uint32_t(capture::SectionType::thread_routines), routines.bytes())
          .bytes(),
      kName);
  EXPECT_TRUE(newer.threads[0].named);
  EXPECT_FALSE(newer.threads[1].named) << "as the runtime said, whatever its name";
  EXPECT_EQ(newer.threads[1].routines, (std::vector<uint64_t>{0x555555555100, 0x555555555200}));

  test_support::PayloadWriter stranger;  // routines of a thread the threads section does not list
  stranger.u32(1);
  stranger.u32(7);
  stranger.u32(0);
  stranger.u32(0);
  EXPECT_THROW(parse_capture(CaptureFile::of(run)
                                 .raw_section(uint32_t(capture::SectionType::thread_routines),
                                              stranger.bytes())
                                 .bytes(),
                             kName),
               CaptureError);
}

// Starvation charged to threads and contexts, and the contexts' taken processors and team
// waits, come in sections older readers skip (an older capture has none: zeros), each naming only
// threads and contexts listed.
TEST(ParseCapture, StarvationOfThreadsAndContexts) {
  const profile::Run run = test_support::sample_run();
  ASSERT_GE(run.threads.size(), 2u);
  ASSERT_GE(run.contexts.size(), 2u);
  const profile::Run older = parse_capture(CaptureFile::of(run).bytes(), kName);
  EXPECT_EQ(older.threads[1].starved_startup_s + older.threads[1].starved_later_s, 0.0);
  EXPECT_EQ(older.contexts[1].own.one_busy_starved, 0.0);
  EXPECT_EQ(older.contexts[1].own.one_busy_taken, 0.0);
  EXPECT_EQ(older.contexts[1].own.one_busy_waited, 0.0);

  test_support::PayloadWriter threads, contexts, taken, waited;
  threads.u32(1);
  threads.u32(run.threads[1].index);
  threads.f64(0.25);
  threads.f64(0.5);
  contexts.u32(1);
  contexts.u32(1);
  contexts.f64(0.125);
  taken.u32(1);
  taken.u32(1);
  taken.f64(0.0625);
  waited.u32(1);
  waited.u32(1);
  waited.f64(0.03125);
  const profile::Run newer = parse_capture(
      CaptureFile::of(run)
          .raw_section(uint32_t(capture::SectionType::thread_starvation), threads.bytes())
          .raw_section(uint32_t(capture::SectionType::context_starvation), contexts.bytes())
          .raw_section(uint32_t(capture::SectionType::context_taken), taken.bytes())
          .raw_section(uint32_t(capture::SectionType::context_waited), waited.bytes())
          .bytes(),
      kName);
  EXPECT_EQ(newer.threads[1].starved_startup_s, 0.25);
  EXPECT_EQ(newer.threads[1].starved_later_s, 0.5);
  EXPECT_EQ(newer.threads[0].starved_later_s, 0.0);
  EXPECT_EQ(newer.contexts[1].own.one_busy_starved, 0.125);
  EXPECT_EQ(newer.contexts[0].own.one_busy_starved, 0.0);
  EXPECT_EQ(newer.contexts[1].own.one_busy_taken, 0.0625);
  EXPECT_EQ(newer.contexts[0].own.one_busy_taken, 0.0);
  EXPECT_EQ(newer.contexts[1].own.one_busy_waited, 0.03125);
  EXPECT_EQ(newer.contexts[0].own.one_busy_waited, 0.0);

  test_support::PayloadWriter stranger_thread, stranger_context;
  stranger_thread.u32(1);
  stranger_thread.u32(77);
  stranger_thread.f64(0);
  stranger_thread.f64(0);
  stranger_context.u32(1);
  stranger_context.u32(static_cast<uint32_t>(run.contexts.size()));
  stranger_context.f64(0);
  expect_capture_error(
      CaptureFile::of(run)
          .raw_section(uint32_t(capture::SectionType::thread_starvation), stranger_thread.bytes())
          .bytes(),
      "starvation of a thread not listed");
  expect_capture_error(
      CaptureFile::of(run)
          .raw_section(uint32_t(capture::SectionType::context_starvation), stranger_context.bytes())
          .bytes(),
      "starvation of a context not listed");
  expect_capture_error(
      CaptureFile::of(run)
          .raw_section(uint32_t(capture::SectionType::context_taken), stranger_context.bytes())
          .bytes(),
      "taken processors of a context not listed");
}

TEST(ParseCapture, ReadsAFileAndTellsItFromOthers) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("quartz_capture_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = dir / "run.qz";
  const std::vector<unsigned char> bytes = CaptureFile().run_key("program", "p").bytes();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  EXPECT_TRUE(looks_like_capture(path));
  EXPECT_EQ(read_capture(path).text("program"), "p");
  const std::string missing = dir / "missing.qz";
  EXPECT_FALSE(looks_like_capture(missing));
  try {
    read_capture(missing);
    ADD_FAILURE() << "read a missing file";
  } catch (const CaptureError& e) {
    EXPECT_THAT(e.what(), StartsWith(missing + ": cannot open: "));
  }
  std::filesystem::remove_all(dir);
}

TEST(ParseCapture, TruncatedAtEveryLength) {
  const std::vector<unsigned char> bytes = CaptureFile::of(test_support::sample_run()).bytes();
  for (size_t size = 0; size < bytes.size(); ++size) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " bytes");
    expect_capture_error(std::vector<unsigned char>(bytes.begin(), bytes.begin() + size), "");
  }
  expect_capture_error({}, "empty file", 0);
  expect_capture_error(std::vector<unsigned char>(bytes.begin(), bytes.begin() + 40), "truncated",
                       0);
  expect_capture_error(std::vector<unsigned char>(bytes.begin(), bytes.end() - 1),
                       "no valid end marker", bytes.size() - 1 - sizeof(capture::FileFooter));
}

// The file checksum covers everything but the footer's reserved field.
TEST(ParseCapture, AnyFlippedByteIsAnError) {
  const std::vector<unsigned char> bytes = CaptureFile::of(test_support::sample_run()).bytes();
  for (size_t at = 0; at + 4 < bytes.size(); ++at) {
    SCOPED_TRACE("byte " + std::to_string(at));
    std::vector<unsigned char> damaged = bytes;
    damaged[at] ^= 0x10;
    expect_capture_error(damaged, "");
  }
}

TEST(ParseCapture, FlippedByteInASection) {
  std::vector<SectionSpan> spans;
  const std::vector<unsigned char> bytes =
      CaptureFile::of(test_support::sample_run()).bytes(&spans);
  const SectionSpan& threads = span_of(spans, capture::SectionType::threads);
  std::vector<unsigned char> damaged = bytes;
  damaged[threads.payload_offset + 30] ^= 0x01;
  expect_capture_error(damaged, "checksum mismatch: the file is corrupt",
                       bytes.size() - sizeof(capture::FileFooter));
  // With the file checksum repaired, the section's own checksum finds it.
  CaptureFile::reseal(damaged);
  expect_capture_error(damaged, "checksum mismatch in the threads section", threads.payload_offset);
}

TEST(ParseCapture, BadMagic) {
  std::vector<unsigned char> bytes = CaptureFile().bytes();
  bytes[0] = 'X';
  expect_capture_error(bytes, "not a Quartz capture (bad magic)", 0);
  std::vector<unsigned char> text(100, 'a');
  expect_capture_error(text, "bad magic", 0);
}

TEST(ParseCapture, WrongVersion) {
  expect_capture_error(CaptureFile().version(2).bytes(),
                       "capture format version 2, this Quartz reads version 1", 8);
}

TEST(ParseCapture, ImpossibleHeader) {
  expect_capture_error(CaptureFile(0, 2).bytes(), "impossible processor or bin count", 20);
  expect_capture_error(CaptureFile(2, 1).bytes(), "impossible processor or bin count", 20);
}

TEST(ParseCapture, SectionClaimingMoreBytesThanTheFile) {
  std::vector<SectionSpan> spans;
  const std::vector<unsigned char> bytes =
      CaptureFile::of(test_support::sample_run()).bytes(&spans);
  const SectionSpan& objects = span_of(spans, capture::SectionType::objects);
  const size_t bytes_field = objects.header_offset + offsetof(capture::SectionHeader, bytes);
  const size_t room = bytes.size() - sizeof(capture::FileFooter) - objects.payload_offset;
  for (uint64_t claimed : {uint64_t{room + 1}, uint64_t{1} << 40, ~uint64_t{0}}) {
    SCOPED_TRACE("claimed " + std::to_string(claimed));
    std::vector<unsigned char> damaged = bytes;
    poke(damaged, bytes_field, claimed);
    expect_capture_error(damaged, "checksum mismatch: the file is corrupt");
    CaptureFile::reseal(damaged);
    expect_capture_error(damaged, "a section longer than the file", objects.header_offset);
  }
}

TEST(ParseCapture, ItemCountLargerThanTheSection) {
  std::vector<SectionSpan> spans;
  std::vector<unsigned char> bytes = CaptureFile::of(test_support::sample_run()).bytes(&spans);
  const SectionSpan& threads = span_of(spans, capture::SectionType::threads);
  poke(bytes, threads.payload_offset, uint32_t{3});
  CaptureFile::reseal_section(bytes, threads);
  expect_capture_error(bytes, "an item count larger than the section (in the threads section)",
                       threads.payload_offset);
}

TEST(ParseCapture, ValueThatIsNotANumber) {
  test_support::CaptureFile file(1, 2);
  FullRecord program = test_support::full_record(1, 2, 0);
  program.normalized_self[1] = std::numeric_limits<double>::quiet_NaN();
  std::vector<SectionSpan> spans;
  const std::vector<unsigned char> bytes = file.program(program).bytes(&spans);
  // normalized_self follows processor_self and processor_behalf, P+1 = 2 values each.
  const size_t value_at = span_of(spans, capture::SectionType::program).payload_offset + 5 * 8;
  expect_capture_error(bytes, "a value that is not a finite number (in the program section)",
                       value_at);
}

TEST(ParseCapture, StructuralErrors) {
  using capture::SectionType;
  expect_capture_error(CaptureFile().without(SectionType::program).bytes(), "no program section");
  expect_capture_error(CaptureFile().without(SectionType::run).bytes(), "no run section");
  {
    std::vector<unsigned char> second_run = {0, 0, 0, 0};  // zero keys
    expect_capture_error(CaptureFile().raw_section(1, second_run).bytes(), "a second run section");
  }
  {
    // A program section with one byte too many.
    std::vector<unsigned char> payload(capture::full_record_size(2, 3) * sizeof(double) + 1, 0);
    expect_capture_error(
        CaptureFile().without(SectionType::program).raw_section(8, payload).bytes(),
        "unexpected bytes after the last item (in the program section)");
  }
  {
    // The header promises one section fewer than there are.
    std::vector<unsigned char> bytes = CaptureFile().bytes();
    poke(bytes, offsetof(capture::FileHeader, section_count), uint32_t{1});
    CaptureFile::reseal(bytes);
    expect_capture_error(bytes, "unexpected bytes before the end marker");
  }
  {
    std::vector<unsigned char> bytes = CaptureFile().bytes();
    poke(bytes, offsetof(capture::FileHeader, section_count), uint32_t{3});
    CaptureFile::reseal(bytes);
    expect_capture_error(bytes, "truncated section header");
  }
}

TEST(ParseCapture, ContextsOutOfOrder) {
  const ContextRecord record = test_support::context_record(2, 0);
  std::vector<SectionSpan> spans;
  const std::vector<unsigned char> out_of_order =
      CaptureFile()
          .context({0, capture::kNoParent, 0x10, capture::kProcedure, {}}, record)
          .context({2, 0, 0x20, capture::kProcedure, {}}, record)
          .bytes(&spans);
  const size_t item_bytes = 20 + capture::context_record_size(2) * sizeof(double);
  const size_t second_at =
      span_of(spans, capture::SectionType::contexts).payload_offset + 4 + item_bytes;
  expect_capture_error(out_of_order, "contexts out of order (in the contexts section)", second_at);

  spans.clear();
  const std::vector<unsigned char> parent_after =
      CaptureFile()
          .context({0, capture::kNoParent, 0x10, capture::kProcedure, {}}, record)
          .context({1, 1, 0x20, capture::kProcedure, {}}, record)
          .bytes(&spans);
  expect_capture_error(parent_after, "a context whose parent comes after it", second_at + 4);
}

// Any change to a payload, with checksums repaired so that the reader meets it, parses or
// gives a CaptureError: never a crash, a hang or a huge allocation (run under ASan too).
TEST(ParseCapture, DamagedPayloadsWithValidChecksums) {
  profile::Run run;
  run.processors = 1;
  run.runnable_bins = 2;
  run.info = {{"program", "p"}, {"samples", "10"}};
  run.modules = {{0, 0x1000, "/bin/p"}};
  ThreadInfo thread;
  thread.name = "main";
  thread.record = test_support::full_record(1, 2, 0);
  run.threads = {thread};
  ObjectInfo object;
  object.name = "m";
  object.queue = {1, 2};
  object.record = test_support::full_record(1, 2, 10);
  run.objects = {object};
  run.procedures = {{0x1100, test_support::full_record(1, 2, 20)}};
  run.add_context({0, capture::kNoParent, 0x1100, capture::kProcedure, {}},
                  test_support::context_record(1, 30));
  run.edges = {{0, 0x1100, 3}};
  run.program = test_support::full_record(1, 2, 40);
  std::vector<SectionSpan> spans;
  const std::vector<unsigned char> bytes = CaptureFile::of(run).bytes(&spans);

  size_t errors = 0;
  for (const SectionSpan& span : spans) {
    for (size_t at = span.payload_offset; at < span.payload_offset + span.payload_bytes; ++at) {
      for (unsigned char value : {0x00, 0x7f, 0xff}) {
        std::vector<unsigned char> damaged = bytes;
        damaged[at] = value;
        CaptureFile::reseal_section(damaged, span);
        const std::string message = capture_error(damaged);
        if (message.empty()) continue;
        ++errors;
        EXPECT_THAT(message, StartsWith(kName + ": offset ")) << "byte " << at;
      }
    }
  }
  EXPECT_GT(errors, 0u);
}

}  // namespace
}  // namespace quartz::profile
