// The sampler's cost per thread snapshot: reading a thread block's stack into a calling
// context, reading a thread's CPU clock and schedstat, and attributing a window; by thread
// count and stack depth. Thread snapshots per second of one sampler core = 1 / the sum.
// The *Elsewhere benchmarks read threads that run on another processor, whose writes the
// reader's cache must fetch: the counts of lines that docs/design.md ("Past one socket")
// scales to another package's distance.
#include <benchmark/benchmark.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <thread>
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

// --- Threads on another processor ----------------------------------------------------------

bool pin(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return sched_setaffinity(0, sizeof one, &one) == 0;
}

// The benchmark's thread on processor 0 for the benchmark's life, then back where it was.
class PinnedReader {
 public:
  PinnedReader() {
    sched_getaffinity(0, sizeof saved_, &saved_);
    pinned_ = CPU_COUNT(&saved_) >= 2 && CPU_ISSET(0, &saved_) && CPU_ISSET(1, &saved_) && pin(0);
  }
  ~PinnedReader() { sched_setaffinity(0, sizeof saved_, &saved_); }
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_;
  bool pinned_ = false;
};

// A thread on processor 1 that runs `work` each time the reader hands it a turn, in
// lockstep: its writes never overlap the reads.
class Writer {
 public:
  explicit Writer(std::function<void()> work)
      : work_(std::move(work)), thread_([this] {
          pin(1);
          for (;;) {
            uint32_t turn;
            while ((turn = turn_.load(std::memory_order_acquire)) == 0) {
            }
            if (turn == 2) return;
            work_();
            turn_.store(0, std::memory_order_release);
          }
        }) {}
  ~Writer() {
    turn_.store(2, std::memory_order_release);
    thread_.join();
  }
  void write() {
    turn_.store(1, std::memory_order_release);
    while (turn_.load(std::memory_order_acquire) != 0) {
    }
  }

 private:
  std::atomic<uint32_t> turn_{0};
  std::function<void()> work_;
  std::thread thread_;
};

// One cache line handed from processor 0 to 1 and back: the time of a round trip.
void BM_LineRoundTripElsewhere(benchmark::State& state) {
  PinnedReader reader;
  if (!reader.pinned()) return state.SkipWithError("needs processors 0 and 1");
  alignas(64) std::atomic<uint64_t> line{0};
  std::atomic<bool> stop{false};
  std::thread echo([&] {
    pin(1);
    uint64_t seen = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const uint64_t v = line.load(std::memory_order_acquire);
      if (v != seen && (v & 1)) {
        seen = v + 1;
        line.store(seen, std::memory_order_release);
      }
    }
  });
  uint64_t v = 0;
  for (auto _ : state) {
    line.store(++v, std::memory_order_release);  // odd: the echo's turn
    while (line.load(std::memory_order_acquire) != v + 1) {
    }
    ++v;
  }
  stop.store(true);
  echo.join();
}
BENCHMARK(BM_LineRoundTripElsewhere);

// Reading stacks that are unchanged since the last read or each with a new top, written by
// the reader itself (untimed: the lines are in its cache) or by their owner on processor 1
// (the control word's line and the top entry's come from processor 1's cache).
void BM_StackReadElsewhere(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int depth = static_cast<int>(state.range(1));
  const bool changing = state.range(2) != 0;
  const bool elsewhere = state.range(3) != 0;
  PinnedReader reader;
  if (!reader.pinned()) return state.SkipWithError("needs processors 0 and 1");
  std::vector<rt::ThreadBlock*> blocks = make_blocks(threads, depth - 1);
  sampler::ProfileTables tables;
  tables.init(sampler::RecordShape{2, 33}, sampler::ProfileTables::Limits{});
  sampler::StackReader stacks;
  stacks.init(512, 128);
  uint64_t round = 0;
  // The top procedure, replaced each round.
  auto top = [](uint64_t r) { return 0x9000 + 16 * static_cast<uintptr_t>(r % 64); };
  auto write = [&] {
    for (rt::ThreadBlock* b : blocks) {
      if (round > 0) b->stack.pop_procedure(top(round - 1));
      b->stack.push(top(round), rt::kProcedureTag);
    }
  };
  std::optional<Writer> owner;
  if (elsewhere) owner.emplace(write);
  auto change = [&] { elsewhere ? owner->write() : write(); };
  change();
  for (int t = 0; t < threads; ++t) stacks.read(tables, static_cast<uint32_t>(t), true, *blocks[t]);
  for (auto _ : state) {
    if (changing) {
      ++round;
      change();
    }
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) {
      benchmark::DoNotOptimize(stacks.read(tables, static_cast<uint32_t>(t), false, *blocks[t]));
    }
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations() * threads);
}
BENCHMARK(BM_StackReadElsewhere)
    ->ArgsProduct({{64}, {8, 32}, {0, 1}, {0, 1}})
    ->ArgNames({"threads", "depth", "changing", "elsewhere"})
    ->UseManualTime();

// The CPU clock of a thread on processor 1, running (the kernel takes its run queue's lock
// to bring its time up to date) or asleep (its stored time).
void BM_ThreadClockElsewhere(benchmark::State& state) {
  const bool running = state.range(0) != 0;
  PinnedReader reader;
  if (!reader.pinned()) return state.SkipWithError("needs processors 0 and 1");
  std::atomic<pid_t> tid{0};
  std::atomic<bool> stop{false};
  std::thread target([&] {
    pin(1);
    tid.store(static_cast<pid_t>(syscall(SYS_gettid)));
    while (!stop.load(std::memory_order_relaxed)) {
      if (!running) usleep(1000);
    }
  });
  while (tid.load() == 0) {
  }
  uint64_t ns;
  for (auto _ : state) benchmark::DoNotOptimize(support::read_thread_clock(tid.load(), &ns));
  stop.store(true);
  target.join();
}
BENCHMARK(BM_ThreadClockElsewhere)->Arg(1)->Arg(0)->ArgName("running");

}  // namespace

BENCHMARK_MAIN();
