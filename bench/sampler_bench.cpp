// The sampler's cost per thread snapshot: reading a thread block's stack into a calling
// context, reading a thread's CPU clock and schedstat, and attributing a window; by thread
// count and stack depth. Thread snapshots per second of one sampler core = 1 / the sum.
#include <benchmark/benchmark.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "runtime/thread_block.h"
#include "sampler/attribution.h"
#include "sampler/measure/stack_reader.h"
#include "sampler/tables.h"
#include "support/mapped_memory.h"
#include "support/thread_cpu.h"

namespace {

using namespace quartz;

// Thread blocks with stacks of `depth` procedures (no threads: the reader only needs blocks).
std::vector<rt::ThreadBlock*> make_blocks(int count, int depth) {
  rt::BlockGeometry geometry;
  std::vector<rt::ThreadBlock*> blocks;
  for (int t = 0; t < count; ++t) {
    rt::ThreadBlock* b = rt::ThreadBlock::create_in(
        support::map_zeroed(rt::ThreadBlock::bytes_for(geometry)), geometry);
    for (int d = 0; d < depth; ++d)
      b->stack.push(0x1000 + 16 * static_cast<uintptr_t>(d + t % 4), rt::kProcedureTag);
    blocks.push_back(b);
  }
  return blocks;
}

// Reading stacks that did not change since the last snapshot (the common case) and stacks
// whose top changes every time.
void BM_StackRead(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int depth = static_cast<int>(state.range(1));
  const bool changing = state.range(2) != 0;
  std::vector<rt::ThreadBlock*> blocks = make_blocks(threads, depth);
  sampler::ProfileTables tables;
  tables.init(sampler::RecordShape{2, 33}, sampler::ProfileTables::Limits{});
  sampler::StackReader reader;
  reader.init(512, 128);
  uint64_t round = 0;
  for (auto _ : state) {
    for (int t = 0; t < threads; ++t) {
      if (changing) {
        blocks[t]->stack.pop_procedure(blocks[t]->stack.depth() ? 0 : 0);  // unmatched: no-op
        blocks[t]->stack.push(0x9000 + 16 * (round % 64), rt::kProcedureTag);
      }
      benchmark::DoNotOptimize(
          reader.read(tables, static_cast<uint32_t>(t), round == 0, *blocks[t]));
      if (changing) blocks[t]->stack.pop_procedure(0x9000 + 16 * (round % 64));
    }
    ++round;
  }
  state.SetItemsProcessed(state.iterations() * threads);
}
BENCHMARK(BM_StackRead)
    ->ArgsProduct({{1, 4, 16, 64}, {8, 32, 128}, {0, 1}})
    ->ArgNames({"threads", "depth", "changing"});

void BM_ThreadClock(benchmark::State& state) {
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  uint64_t ns;
  for (auto _ : state) benchmark::DoNotOptimize(support::read_thread_clock(tid, &ns));
}
BENCHMARK(BM_ThreadClock);

void BM_Schedstat(benchmark::State& state) {
  const pid_t tid = static_cast<pid_t>(syscall(SYS_gettid));
  support::ThreadCpu cpu;
  for (auto _ : state) benchmark::DoNotOptimize(support::read_thread_cpu(tid, &cpu));
}
BENCHMARK(BM_Schedstat);

// Attributing one window of 10 snapshots of `threads` threads with stacks `depth` deep,
// per thread sample.
void BM_Attribution(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int depth = static_cast<int>(state.range(1));
  sampler::ProfileTables tables;
  tables.init(sampler::RecordShape{8, 33}, sampler::ProfileTables::Limits{});
  std::vector<uint32_t> leaves;
  for (int t = 0; t < threads; ++t) {
    uint32_t context = sampler::kNone;
    for (int d = 0; d < depth; ++d)
      context = tables.context(context, 0x1000 + 16 * static_cast<uint64_t>(d + t % 4),
                               capture::kProcedure);
    leaves.push_back(context);
  }
  sampler::Window window;
  window.init(64, 64 * 128, 128);
  sampler::AttributionConfig config;
  config.processors = 8;
  sampler::AttributionTotals totals;
  for (auto _ : state) {
    state.PauseTiming();
    window.clear();
    for (int k = 0; k < 10; ++k) {
      window.begin_snapshot(1'000'000);
      for (int t = 0; t < threads; ++t) {
        uint32_t position = static_cast<uint32_t>(t);
        bool created;
        window.thread(static_cast<uint32_t>(t), &position, &created);
        window.add_sample(sampler::ThreadSample{
            static_cast<uint32_t>(t), position, leaves[t],
            static_cast<uint8_t>(t % 3 == 2 ? capture::kBlocked : capture::kBusy), 0, 0, 0.9f});
      }
    }
    state.ResumeTiming();
    sampler::attribute_window(window, tables, config, totals);
  }
  state.SetItemsProcessed(state.iterations() * 10 * threads);
}
BENCHMARK(BM_Attribution)
    ->ArgsProduct({{1, 4, 16, 64}, {8, 32, 128}})
    ->ArgNames({"threads", "depth"});

}  // namespace

BENCHMARK_MAIN();
