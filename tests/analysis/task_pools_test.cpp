// Task pools (task_pools.h): which threads a queue feeds, found in a trace, and the grouping
// a split pool is replayed with.
#include "analysis/task_pools.h"

#include <gtest/gtest.h>

#include "analysis/replay.h"
#include "tests/testing/trace_builder.h"

namespace quartz::analysis {
namespace {

using test_support::BuiltRecord;
using test_support::Timeline;
using test_support::TraceBytes;
using trace::Type;

constexpr uint64_t kQueueMutex = 0x3000, kQueueReady = 0x4000;

// Main (0) and `starts[i]`, thread i + 1's first procedures, each named `name`.
profile::Run run_of_workers(const std::vector<std::vector<uint64_t>>& starts, const char* name) {
  profile::Run run;
  profile::ThreadInfo main;
  main.name = "main";
  run.threads.push_back(main);
  for (uint32_t i = 0; i < starts.size(); ++i) {
    profile::ThreadInfo t;
    t.index = i + 1;
    t.name = name;
    t.routines = starts[i];
    run.threads.push_back(t);
  }
  return run;
}

Grouping grouping_of(std::vector<uint32_t> group_of, uint32_t groups) {
  return Grouping{std::move(group_of), groups};
}

TEST(TaskPools, ThreadsOfOneStartWaitingOnOneConditionAreAPool) {
  // 1-3 a pool's workers, 4 another routine; main waits on the same condition too.
  const profile::Run run = run_of_workers({{0xa, 0xb}, {0xa, 0xb}, {0xa, 0xb}, {0xa, 0xc}}, "worker");
  const std::vector<std::vector<uint32_t>> shared{{0, 1, 2, 3, 4}, {1, 4}};
  const std::vector<TaskPool> pools = task_pools(run, shared);
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(pools[0].threads, (std::vector<uint32_t>{1, 2, 3}));
  // Threads that say nothing of how they started are nobody's siblings.
  EXPECT_TRUE(task_pools(run_of_workers({{}, {}}, "worker"), shared).empty());
}

TEST(TaskPools, AGroupingThatSplitsAPoolIsReplayedWithItsGroupsTogether) {
  const std::vector<TaskPool> pools{{{1, 2, 3}}};
  // "0,1|2,3": one processor for main and a worker, one for two workers: both together.
  const std::optional<SimulationConfig> both = pooled_grouping(grouping_of({0, 0, 1, 1}, 2), pools);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->group_of_thread, (std::vector<uint32_t>{0, 0, 0, 0}));
  EXPECT_EQ(both->cores, (std::vector<double>{2}));
  // "0|1|2,3|4" with the pool 1-2: the groups of 1 and 2 merge, the others stay.
  const std::optional<SimulationConfig> some =
      pooled_grouping(grouping_of({0, 1, 2, 2, 3}, 4), std::vector<TaskPool>{{{1, 2}}});
  ASSERT_TRUE(some);
  EXPECT_EQ(some->group_of_thread, (std::vector<uint32_t>{0, 1, 1, 1, 2}));
  EXPECT_EQ(some->cores, (std::vector<double>{1, 2, 1}));
  // "0|1,2,3": the pool on one processor is not split.
  EXPECT_FALSE(pooled_grouping(grouping_of({0, 1, 1, 1}, 2), pools));
}

TEST(TaskPools, ASplitPoolIsNamedByItsThreads) {
  const profile::Run run = run_of_workers({{0xa}, {0xa}, {0xa}}, "pool_worker");
  const std::vector<TaskPool> pools{{{1, 2, 3}}};
  EXPECT_EQ(split_pools(grouping_of({0, 0, 1, 1}, 2), pools, run), "pool_worker 1,2,3");
  EXPECT_EQ(split_pools(grouping_of({0, 1, 1, 1}, 2), pools, run), "");
}

// A producer (1) hands two items to two consumers (2, 3) waiting on one condition, with
// signals (a queue) or broadcasts (a phase everybody waits for).
std::vector<BuiltRecord> two_consumers(Type wake_them) {
  std::vector<BuiltRecord> r;
  Timeline main(0, r);
  main.event(Type::thread_start, 0, trace::kNoThread);
  for (uint32_t t = 1; t <= 3; ++t) main.event(Type::create, 0, t);
  for (uint32_t t = 1; t <= 3; ++t) {
    main.event(Type::join_begin, capture::kJoin, t).until(20).event(Type::join_end, capture::kJoin, t);
  }
  main.event(Type::process_end).exit();
  Timeline producer(1, r);
  producer.event(Type::thread_start, 0, 0).work(10);
  producer.event(Type::lock_acquire, capture::kMutex, kQueueMutex, 3)
      .event(Type::lock_release, capture::kMutex, kQueueMutex, 3)
      .event(wake_them, capture::kCondition, kQueueReady, 1)
      .work(10);
  producer.event(Type::lock_acquire, capture::kMutex, kQueueMutex, 5)
      .event(Type::lock_release, capture::kMutex, kQueueMutex, 5)
      .event(wake_them, capture::kCondition, kQueueReady, 2)
      .exit();
  for (uint32_t c = 2; c <= 3; ++c) {
    const uint32_t woken = c - 1;  // by the first signal, or the second
    Timeline consumer(c, r);
    consumer.event(Type::thread_start, 0, 0)
        .event(Type::lock_acquire, capture::kMutex, kQueueMutex, c - 1)
        .event(Type::lock_release, capture::kMutex, kQueueMutex, c - 1)
        .event(Type::cond_wait, capture::kCondition, kQueueReady, 0)
        .until(10.0 * woken)
        .event(Type::cond_wake, capture::kCondition, kQueueReady, woken)
        .event(Type::lock_acquire, capture::kMutex, kQueueMutex, 2 + 2 * woken)
        .event(Type::lock_release, capture::kMutex, kQueueMutex, 2 + 2 * woken)
        .exit();
  }
  return r;
}

std::vector<std::vector<uint32_t>> shared_conditions(const std::vector<BuiltRecord>& records) {
  TraceBytes bytes;
  bytes.chunks(records, 1 << 20);
  bytes.end();
  return replay_trace(profile::trace_from_bytes(bytes.bytes(), "test.trace"), 4, AssemblerCosts{},
                      {threads_sharing(4, 2)})
      .shared_conditions;
}

TEST(TaskPools, AReplayPassNamesTheConditionsThreadsAreWokenFromOneAtATime) {
  EXPECT_EQ(shared_conditions(two_consumers(Type::cond_signal)),
            (std::vector<std::vector<uint32_t>>{{2, 3}}));
  EXPECT_TRUE(shared_conditions(two_consumers(Type::cond_broadcast)).empty());
}

}  // namespace
}  // namespace quartz::analysis
