// The trace's costs (docs/performance.md): an event on the recording thread (a push into its
// queue), the sampler draining and encoding events (events per second one sampler core
// sustains, bytes per event), and the predictor replaying a trace (records per second).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "analysis/replay.h"
#include "runtime/thread_block.h"
#include "sampler/publish/trace_writer.h"
#include "support/mapped_memory.h"

namespace {

using namespace quartz;

rt::ThreadBlock* traced_block(uint32_t capacity) {
  rt::BlockGeometry g;
  g.trace_capacity = capacity;
  return rt::ThreadBlock::create_in(support::map_zeroed(rt::ThreadBlock::bytes_for(g)), g);
}

rt::TraceEvent lock_event(uint64_t i) {
  return rt::TraceEvent{1000 + i * 300,
                        0x7f1234567890,
                        static_cast<uint32_t>(i),
                        0,
                        static_cast<uint32_t>(2 * i),
                        trace::Type::lock_acquire,
                        1,
                        0};
}

// The recording thread's side: one event into its queue (a full queue is drained, untimed).
void BM_TracePush(benchmark::State& state) {
  rt::ThreadBlock* b = traced_block(16384);
  uint64_t i = 0;
  for (auto _ : state) {
    b->trace->push(lock_event(i++));
    if ((i & 16383) == 16000) {
      state.PauseTiming();
      b->trace->drain([](const rt::TraceEvent&) {});
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TracePush);

// The sampler's side: drain a full queue and encode it into the trace file's format.
void BM_TraceDrainAndEncode(benchmark::State& state) {
  rt::ThreadBlock* b = traced_block(16384);
  sampler::TraceWriter writer;
  if (!writer.open("/dev/null", 0, 1.0)) state.SkipWithError("cannot open /dev/null");
  uint64_t i = 0, events = 0;
  const uint64_t bytes_before = writer.bytes();
  for (auto _ : state) {
    state.PauseTiming();
    for (int k = 0; k < 16000; ++k) b->trace->push(lock_event(i++));
    state.ResumeTiming();
    writer.drain(1, *b);
    writer.flush(size_t{1} << 20);
    events += 16000;
  }
  writer.finish();
  state.SetItemsProcessed(static_cast<int64_t>(events));
  state.counters["bytes_per_event"] =
      static_cast<double>(writer.bytes() - bytes_before) / static_cast<double>(events);
}
BENCHMARK(BM_TraceDrainAndEncode)->Unit(benchmark::kMillisecond);

// A synthetic trace: `threads` workers taking one lock in turn, `per_thread` times each,
// each event followed by a CPU reading, and the sampler's readings (CPU and context every
// 2 ms, run queue every 10 ms), as a traced lock-bound program writes.
std::vector<unsigned char> lock_trace(uint32_t threads, uint32_t per_thread, uint64_t* records) {
  rt::ThreadBlock* b = traced_block(1u << 22);
  sampler::TraceWriter writer;
  const std::string path = "/tmp/quartz-trace-bench.trace";
  writer.open(path.substr(0, path.size() - 6).c_str(), 0, 1.0);
  uint64_t t = 0;
  uint32_t sequence = 0;
  for (uint32_t w = 1; w <= threads; ++w) {
    b->trace->push(rt::TraceEvent{t, 0, 0, 0, 0, trace::Type::thread_start, 0, 0});
    writer.drain(w, *b);
  }
  for (uint32_t round = 0; round < per_thread; ++round) {
    for (uint32_t w = 1; w <= threads; ++w) {
      const uint64_t cpu = (round + 1) * 2000;
      ++sequence;
      b->trace->push(
          rt::TraceEvent{t += 1000, 0x1000, sequence, 0, 0, trace::Type::lock_acquire, 1, 0});
      b->trace->push(rt::TraceEvent{t, cpu - 1000, 0, 0, 0, trace::Type::cpu, 0, 0});
      b->trace->push(
          rt::TraceEvent{t += 1000, 0x1000, sequence, 0, 0, trace::Type::lock_release, 1, 0});
      b->trace->push(rt::TraceEvent{t, cpu, 0, 0, 0, trace::Type::cpu, 0, 0});
      writer.drain(w, *b);
      if (round % 250 == 0) writer.sample(w, t, cpu, round % 1250 == 0 ? 0 : ~0ull, 3);
    }
    writer.flush(size_t{256} << 10);
  }
  for (uint32_t w = 1; w <= threads; ++w) {
    b->trace->push(rt::TraceEvent{t, 0, 0, 0, 0, trace::Type::thread_exit, 0, 0});
    writer.drain(w, *b);
  }
  writer.finish();
  *records = uint64_t{threads} * (2 + 4ull * per_thread + per_thread / 250);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::vector<unsigned char> bytes;
  unsigned char buffer[1 << 16];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;)
    bytes.insert(bytes.end(), buffer, buffer + n);
  std::fclose(f);
  std::remove(path.c_str());
  return bytes;
}

// The predictor: read, assemble and replay one configuration (4 threads on 2 processors).
void BM_Predict(benchmark::State& state) {
  uint64_t records = 0;
  const std::vector<unsigned char> bytes =
      lock_trace(4, static_cast<uint32_t>(state.range(0)), &records);
  analysis::SimulationConfig shared;
  shared.group_of_thread.assign(5, 0);
  shared.cores = {2};
  for (auto _ : state) {
    auto pass = analysis::replay_trace(profile::trace_from_bytes(bytes, "bench"), 5,
                                       analysis::AssemblerCosts{}, {shared});
    benchmark::DoNotOptimize(pass.results[0].elapsed_ns);
  }
  state.SetItemsProcessed(static_cast<int64_t>(records * state.iterations()));
  state.counters["trace_MB"] = static_cast<double>(bytes.size()) / 1e6;
}
BENCHMARK(BM_Predict)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
