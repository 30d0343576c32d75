// Reading traces: every record type round-trips; a truncated or corrupt trace gives an
// error naming the trace and the offset, or (a torn last chunk) ends early, never a crash.
#include "profile/trace_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include "tests/testing/trace_builder.h"

namespace quartz::profile {
namespace {

using analysis::test_support::BuiltRecord;
using analysis::test_support::Timeline;
using analysis::test_support::TraceBytes;
using testing::HasSubstr;
using testing::StartsWith;
using trace::Type;

std::vector<unsigned char> small_trace(bool end = true) {
  std::vector<BuiltRecord> r;
  Timeline t(3, r, 1.5);
  t.event(Type::thread_start, 0, 0)
      .work(2)
      .event(Type::lock_acquire, capture::kMutex, 0x7fff12345678, 9, 2);
  t.sample(42, 0.25).work(1).exit();
  TraceBytes b;
  b.chunks(r, 4);
  if (end) b.end(0, 4);
  return b.bytes();
}

std::vector<TraceRecord> read_all(const std::vector<unsigned char>& bytes,
                                  TraceTotals* totals = nullptr) {
  TraceReader reader(trace_from_bytes(bytes, "t.trace"));
  std::vector<TraceRecord> all, chunk;
  while (reader.next_chunk(chunk)) all.insert(all.end(), chunk.begin(), chunk.end());
  if (totals) *totals = reader.totals();
  return all;
}

std::string error_of(const std::vector<unsigned char>& bytes) {
  try {
    read_all(bytes);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceReader, RecordsRoundTrip) {
  TraceTotals totals;
  const auto records = read_all(small_trace(), &totals);
  EXPECT_TRUE(totals.complete);
  EXPECT_EQ(totals.threads, 4u);
  ASSERT_EQ(records.size(), 8u);  // 3 events each with its CPU reading, a sample, the exit sample
  EXPECT_EQ(records[0].type, Type::thread_start);
  EXPECT_EQ(records[0].time_ns, 1'500'000u);
  EXPECT_EQ(records[2].type, Type::lock_acquire);
  EXPECT_EQ(records[2].thread, 3u);
  EXPECT_EQ(records[2].kind, capture::kMutex);
  EXPECT_EQ(records[2].object, 0x7fff12345678u);
  EXPECT_EQ(records[2].sequence, 9u);
  EXPECT_EQ(records[2].aux, 2u);
  EXPECT_EQ(records[3].type, Type::cpu);
  EXPECT_EQ(records[3].cpu_ns, 2'000'000u);
  EXPECT_EQ(records[4].type, Type::sample);
  EXPECT_TRUE(records[4].has_context);
  EXPECT_EQ(records[4].context, 42u);
  EXPECT_TRUE(records[4].has_runqueue);
  EXPECT_EQ(records[4].runqueue_ns, 250'000u);
}

TEST(TraceReader, NotATrace) {
  EXPECT_EQ(error_of({}), "t.trace: offset 0: too short for a trace header");
  std::vector<unsigned char> bytes = small_trace();
  bytes[0] = 'X';
  EXPECT_EQ(error_of(bytes), "t.trace: offset 0: not a Quartz trace");
  bytes = small_trace();
  bytes[8] = 99;
  EXPECT_THAT(error_of(bytes), StartsWith("t.trace: offset 8: trace format version 99"));
}

// A trace of version 1 (before lock_fed and lock_feeds) is read as it was written.
TEST(TraceReader, AnEarlierVersionIsRead) {
  std::vector<unsigned char> bytes = small_trace();
  bytes[8] = 1;
  EXPECT_EQ(read_all(bytes).size(), read_all(small_trace()).size());
}

TEST(TraceReader, CorruptChunk) {
  std::vector<unsigned char> bytes = small_trace();
  bytes[sizeof(trace::FileHeader) + sizeof(trace::ChunkHeader) + 2] ^= 0x40;
  EXPECT_EQ(error_of(bytes), "t.trace: offset 16: chunk checksum mismatch");
  bytes = small_trace();
  bytes[sizeof(trace::FileHeader)] ^= 1;
  EXPECT_EQ(error_of(bytes), "t.trace: offset 16: bad chunk magic");
}

TEST(TraceReader, RecordsThatDoNotFitTheirChunk) {
  // A chunk whose payload claims more records than it holds, checksum and all correct.
  std::vector<unsigned char> payload;
  TraceBytes::varint(payload, 0);
  const uint32_t count = 2;
  payload.insert(payload.end(), reinterpret_cast<const unsigned char*>(&count),
                 reinterpret_cast<const unsigned char*>(&count) + 4);
  payload.push_back(static_cast<uint8_t>(Type::cpu));
  payload.push_back(0);
  payload.push_back(1);
  std::vector<unsigned char> bytes = small_trace(false);
  bytes.resize(sizeof(trace::FileHeader));
  trace::ChunkHeader h{trace::kChunkMagic, 1, static_cast<uint32_t>(payload.size()),
                       capture::crc32_update(0, payload.data(), payload.size())};
  bytes.insert(bytes.end(), reinterpret_cast<unsigned char*>(&h),
               reinterpret_cast<unsigned char*>(&h) + sizeof h);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  EXPECT_THAT(error_of(bytes), HasSubstr("record type: chunk ends inside a record"));
  // An unknown record type.
  bytes.resize(sizeof(trace::FileHeader));
  payload[5] = 77;
  h.crc32 = capture::crc32_update(0, payload.data(), payload.size());
  bytes.insert(bytes.end(), reinterpret_cast<unsigned char*>(&h),
               reinterpret_cast<unsigned char*>(&h) + sizeof h);
  bytes.insert(bytes.end(), payload.begin(), payload.end());
  EXPECT_THAT(error_of(bytes), HasSubstr("unknown record type 77"));
}

TEST(TraceReader, ATornLastChunkEndsTheTraceEarly) {
  const std::vector<unsigned char> whole = small_trace(false);
  TraceTotals totals;
  const size_t all = read_all(whole, &totals).size();
  EXPECT_FALSE(totals.complete);  // no end chunk
  // Cut anywhere inside the last chunk: the chunks before it are read, nothing throws.
  for (size_t cut = whole.size() - 1; cut > whole.size() - 12; --cut) {
    const std::vector<unsigned char> torn(whole.begin(),
                                          whole.begin() + static_cast<std::ptrdiff_t>(cut));
    const size_t got = read_all(torn, &totals).size();
    EXPECT_LT(got, all);
    EXPECT_FALSE(totals.complete);
  }
}

// Found by fuzz/trace_reader_fuzzer: a damaged length made the reader allocate (and fill) the
// 4 GB it claimed before finding the trace ended. The kernel's count of the test's peak memory
// says what it took.
TEST(TraceReader, AChunkLongerThanTheTraceCostsOnlyWhatIsThere) {
  std::vector<unsigned char> bytes = small_trace(false);
  const size_t whole = read_all(bytes).size();
  const trace::ChunkHeader huge{trace::kChunkMagic, 1, 0xfffffff0u, 0};
  const auto* h = reinterpret_cast<const unsigned char*>(&huge);
  bytes.insert(bytes.end(), h, h + sizeof huge);
  bytes.insert(bytes.end(), 100, 0);
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  TraceTotals totals;
  EXPECT_EQ(read_all(bytes, &totals).size(), whole);
  EXPECT_FALSE(totals.complete);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024);  // kB
}

}  // namespace
}  // namespace quartz::profile
