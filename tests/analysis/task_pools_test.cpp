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

// Main (0) and threads 1..n named `name`, each started in `routine`.
profile::Run run_of_workers(uint32_t n, const char* name, std::vector<uint64_t> routine = {}) {
  profile::Run run;
  for (uint32_t i = 0; i <= n; ++i) {
    profile::ThreadInfo t;
    t.index = i;
    t.name = i == 0 ? "main" : name;
    if (i > 0) t.routines = routine;
    run.threads.push_back(t);
  }
  return run;
}

// A condition's use: waiters, signallers, signals, broadcasts, its mutex's takers.
StepAssembler::ConditionUse use_of(std::vector<uint32_t> waiters, std::vector<uint32_t> signallers,
                                   uint64_t signals, uint64_t broadcasts,
                                   std::vector<uint32_t> takers = {}, uint32_t mutex = 7) {
  return {std::move(waiters), std::move(signallers), signals, broadcasts, mutex, std::move(takers)};
}

Grouping grouping_of(std::vector<uint32_t> group_of, uint32_t groups) {
  return Grouping{std::move(group_of), groups};
}

TEST(TaskPools, ThreadsAnotherFeedsThroughOneConditionAreAPool) {
  const profile::Run run = run_of_workers(6, "worker", {0xa, 0xb});
  // 1-3 take what 0 signals; 4 and 5 hand a turn to each other (pairs); 1-3 and 6 wait for
  // a phase 0 broadcasts.
  const std::vector<StepAssembler::ConditionUse> shared{
      use_of({1, 2, 3}, {0}, 30, 1), use_of({4, 5}, {4, 5}, 40, 0), use_of({1, 2, 3, 6}, {}, 0, 5)};
  const std::vector<TaskPool> pools = task_pools(run, shared);
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(pools[0].threads, (std::vector<uint32_t>{1, 2, 3}));
  // Workers that also queue work (a task that submits another) are fed all the same.
  EXPECT_EQ(task_pools(run, std::vector{use_of({1, 2}, {0, 1}, 9, 0)}).size(), 1u);
}

TEST(TaskPools, AWorkerThatAlwaysFoundWorkQueuedIsInItsSiblingsPool) {
  // 1 waited; 2, started as 1 was, took the queue's mutex and never had to; 0 fed them.
  profile::Run run = run_of_workers(3, "consumer", {0xa});
  run.threads[3].routines = {0xc};  // 3, the writer, took the mutex too
  const std::vector<TaskPool> pools =
      task_pools(run, std::vector{use_of({1}, {0}, 9, 0, {0, 1, 2, 3})});
  ASSERT_EQ(pools.size(), 1u);
  EXPECT_EQ(pools[0].threads, (std::vector<uint32_t>{1, 2}));
  // Alone, a waiter is no pool.
  EXPECT_TRUE(task_pools(run, std::vector{use_of({1}, {0}, 9, 0, {0, 1, 3})}).empty());
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
  const profile::Run run = run_of_workers(3, "pool_worker");
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
    main.event(Type::join_begin, capture::kJoin, t)
        .until(20)
        .event(Type::join_end, capture::kJoin, t);
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

std::vector<StepAssembler::ConditionUse> signalled_conditions(
    const std::vector<BuiltRecord>& records) {
  TraceBytes bytes;
  bytes.chunks(records, 1 << 20);
  bytes.end();
  return replay_trace(profile::trace_from_bytes(bytes.bytes(), "test.trace"), 4, AssemblerCosts{},
                      {threads_sharing(4, 2)})
      .signalled_conditions;
}

TEST(TaskPools, AReplayPassSaysWhoWaitedOnAConditionAndWhoWokeThem) {
  // The mutex is the first lock the trace used (Step::lock 0).
  const std::vector<StepAssembler::ConditionUse> signalled =
      signalled_conditions(two_consumers(Type::cond_signal));
  ASSERT_EQ(signalled.size(), 1u);
  EXPECT_EQ(signalled[0].waiters, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(signalled[0].signallers, (std::vector<uint32_t>{1}));
  EXPECT_EQ(signalled[0].signals, 2u);
  EXPECT_EQ(signalled[0].broadcasts, 0u);
  EXPECT_EQ(signalled[0].mutex, 0u);
  // Who took the mutex once a wait named it (the chunk's threads are read one after the
  // other: the producer's acquisitions came before).
  EXPECT_EQ(signalled[0].takers, (std::vector<uint32_t>{2, 3}));
  // Only broadcast to: no waiter was signalled.
  EXPECT_TRUE(signalled_conditions(two_consumers(Type::cond_broadcast)).empty());
}

}  // namespace
}  // namespace quartz::analysis
