// The per-thread trace queue: events come out in order, a full queue drops and counts
// instead of blocking, a reused block starts empty, and a consumer thread draining while
// the owner pushes sees every event exactly once.
#include "runtime/trace_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "runtime/thread_block.h"
#include "support/mapped_memory.h"

namespace quartz::rt {
namespace {

ThreadBlock* traced_block(uint32_t capacity) {
  BlockGeometry g;
  g.stack_capacity = 16;
  g.call_edges_log2 = 4;
  g.objects_log2 = 4;
  g.trace_capacity = capacity;
  return ThreadBlock::create_in(support::map_zeroed(ThreadBlock::bytes_for(g)), g);
}

TraceEvent event(uint64_t n) {
  return TraceEvent{n, n * 3, static_cast<uint32_t>(n), 0, 0, trace::Type::lock_acquire, 1, 0};
}

TEST(TraceQueue, OnlyTracedBlocksHaveOne) {
  BlockGeometry g;
  EXPECT_EQ(ThreadBlock::create_in(support::map_zeroed(ThreadBlock::bytes_for(g)), g)->trace,
            nullptr);
  EXPECT_NE(traced_block(64)->trace, nullptr);
}

TEST(TraceQueue, FullQueueDropsAndCounts) {
  ThreadBlock* b = traced_block(64);
  for (uint64_t i = 0; i < 100; ++i) b->trace->push(event(i));
  EXPECT_EQ(b->trace->dropped(), 36u);
  std::vector<uint64_t> seen;
  EXPECT_EQ(b->trace->drain([&](const TraceEvent& e) { seen.push_back(e.ticks); }), 64u);
  ASSERT_EQ(seen.size(), 64u);
  for (uint64_t i = 0; i < 64; ++i) EXPECT_EQ(seen[i], i);  // the oldest kept, in order
}

TEST(TraceQueue, AReusedBlockStartsEmpty) {
  ThreadBlock* b = traced_block(64);
  for (uint64_t i = 0; i < 70; ++i) b->trace->push(event(i));
  b->reuse();
  EXPECT_EQ(b->trace->dropped(), 0u);
  EXPECT_EQ(b->trace->drain([](const TraceEvent&) {}), 0u);
  EXPECT_EQ(b->trace_cpu_ticks, 0u);
}

TEST(TraceQueue, ConcurrentDrainLosesNothingUncounted) {
  ThreadBlock* b = traced_block(1024);
  constexpr uint64_t kEvents = 2'000'000;
  std::atomic<bool> done{false};
  uint64_t consumed = 0, last = 0;
  bool ordered = true;
  std::thread consumer([&] {
    auto take = [&](const TraceEvent& e) {
      ordered &= consumed == 0 || e.ticks > last;
      ordered &= e.object == e.ticks * 3;
      last = e.ticks;
      ++consumed;
    };
    while (!done.load(std::memory_order_acquire)) b->trace->drain(take);
    b->trace->drain(take);
  });
  for (uint64_t i = 0; i < kEvents; ++i) b->trace->push(event(i));
  done.store(true, std::memory_order_release);
  consumer.join();
  EXPECT_TRUE(ordered);
  EXPECT_EQ(consumed + b->trace->dropped(), kEvents);
  EXPECT_GT(consumed, 0u);
}

}  // namespace
}  // namespace quartz::rt
