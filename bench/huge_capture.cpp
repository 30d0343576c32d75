// Writes a capture of a big run for the huge-run benchmark (bench/huge_run.sh): CONTEXTS
// calling contexts over 2 processors (132 bytes each: 8.1 M make the 1.07 GB capture of
// issue 10), a tree of up to 50 levels over 20,000 procedures, 16 threads and 1,000
// objects, with figures that add up (the contexts' normalized times to the elapsed time).
//   huge_capture CONTEXTS OUTPUT
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "tests/testing/capture_file_fixture.h"

using namespace quartz;
using namespace quartz::profile;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: huge_capture CONTEXTS OUTPUT\n");
    return 2;
  }
  const uint32_t contexts = static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 10));
  constexpr uint32_t kProcessors = 2, kBins = 3, kProcedures = 20000, kThreads = 16,
                     kObjects = 1000;
  constexpr uint64_t kText = 0x555555555000, kData = 0x555555900000;
  const double elapsed_s = 60;
  std::mt19937_64 random(42);
  test_support::CaptureFile b(kProcessors, kBins);
  b.run_key(capture::run_keys::kProgram, "/opt/huge/program")
      .run_key(capture::run_keys::kHost, "bench")
      .run_key(capture::run_keys::kPid, "1")
      .run_key(capture::run_keys::kStartRealtimeNs, "1700000000000000000")
      .run_key(capture::run_keys::kElapsedNs, "60000000000")
      .run_key(capture::run_keys::kPeriodNs, "2000000")
      .run_key(capture::run_keys::kSamples, "30000")
      .run_key(capture::run_keys::kThreadSamples, "480000")
      .run_key(capture::run_keys::kCpuMeasurement, "schedstat");
  for (uint32_t i = 0; i < kThreads; ++i) {
    ThreadInfo t;
    t.index = i;
    t.parent = i == 0 ? capture::kNoParent : 0;
    t.tid = static_cast<int32_t>(1000 + i);
    t.name = i == 0 ? "main" : "worker";
    t.start_routine = i == 0 ? 0 : kText + 16;
    t.exited_ns = i == 0 ? 0 : 59'000'000'000;
    t.record = test_support::full_record(kProcessors, kBins, i + 1);
    b.thread(t);
  }
  for (uint32_t i = 0; i < kObjects; ++i) {
    ObjectInfo o;
    o.address = kData + 64 * i;
    o.acquisitions = 1000;
    o.record = test_support::full_record(kProcessors, kBins, 100 + i);
    b.object(o);
  }
  for (uint32_t i = 0; i < kProcedures; ++i) {
    b.procedure({kText + 16 * i, test_support::full_record(kProcessors, kBins, 5000 + i)});
  }
  // Each context hangs under a recent one (deep paths) or, now and then, a random one.
  std::vector<uint32_t> depth(contexts, 0);
  const double share_s = elapsed_s / contexts;
  for (uint32_t id = 0; id < contexts; ++id) {
    ContextInfo c;
    c.id = id;
    if (id == 0) {
      c.parent = capture::kNoParent;
    } else {
      const uint32_t back = static_cast<uint32_t>(random() % 64) + 1;
      uint32_t parent = id > back ? id - back : 0;
      if (random() % 16 == 0) parent = static_cast<uint32_t>(random() % id);
      if (depth[parent] >= 49) parent = 0;
      c.parent = parent;
      depth[id] = depth[parent] + 1;
    }
    const bool object = random() % 50 == 0;
    c.kind = object ? capture::kMutex : capture::kProcedure;
    c.address = object ? kData + 64 * (random() % kObjects) : kText + 16 * (random() % kProcedures);
    ContextRecord record;
    record.processor = {0, share_s * 0.5, share_s * 1.5};
    record.normalized = {0, share_s * 0.5, share_s * 0.5};
    record.states.state = {share_s * 1.8, 0, share_s * 0.2, 0};
    record.states.runnable_sum = {share_s * 1.8, 0, 0, 0};
    b.context(c, record);
  }
  for (uint32_t i = 1; i < kProcedures; ++i) b.edge(kText + 16 * (i / 2), kText + 16 * i, i);
  b.program(test_support::full_record(kProcessors, kBins, 7));
  const std::vector<unsigned char> bytes = b.bytes();
  std::ofstream out(argv[2], std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::perror(argv[2]);
    return 1;
  }
  std::printf("%s: %u contexts, %zu bytes\n", argv[2], contexts, bytes.size());
  return 0;
}
