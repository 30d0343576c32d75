// End-to-end: programs with known behaviour run under the preloaded runtime. Each test
// checks that the program behaved exactly as without Quartz and that the runtime saw what
// the program did by construction.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "harness.h"

namespace quartz::test {
namespace {

void expect_clean_exit(const RunResult& r) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "\n" << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(r.summary.present) << "no summary written";
}

// Every stack is balanced once the program is done, and no exit went unmatched.
void expect_balanced_stacks(const Summary& s) {
  for (const Record& t : s.threads) {
    EXPECT_EQ(number(t, "depth"), 0u) << "thread " << t.at("index");
    EXPECT_EQ(number(t, "mismatches"), 0u) << "thread " << t.at("index");
  }
}

unsigned long long acquisitions(const Summary& s, const std::string& name) {
  const Record* r = s.object_named(name);
  EXPECT_NE(r, nullptr) << "object " << name << " not seen";
  return r ? number(*r, "acquisitions") : 0;
}

TEST(RuntimeE2E, EverySynchronizationCallIsCountedAndBehavesAsWithoutQuartz) {
  const RunResult r = run_program("sync_objects", {});
  expect_clean_exit(r);
  const Summary& s = r.summary;
  EXPECT_EQ(acquisitions(s, "normal"), 1000u);
  EXPECT_EQ(acquisitions(s, "recursive"), 6u);
  EXPECT_EQ(acquisitions(s, "errcheck"), 1u);
  EXPECT_EQ(acquisitions(s, "trylock"), 2u);  // main's trylock after the holder left, + holder
  EXPECT_EQ(acquisitions(s, "timed"), 2u);    // the holder's lock + main's successful timedlock
  EXPECT_EQ(acquisitions(s, "rwlock"), 4u);
  EXPECT_EQ(acquisitions(s, "spin"), 100u);
  EXPECT_EQ(acquisitions(s, "barrier"), 30u);
  EXPECT_EQ(number(*s.object_named("barrier"), "contended"), 20u);
  EXPECT_EQ(acquisitions(s, "sem"), 6u);
  EXPECT_EQ(number(*s.object_named("sem"), "contended"), 1u);
  EXPECT_EQ(number(*s.object_named("sem"), "waiters"), 0u);
  EXPECT_GE(number(*s.object_named("queue_cond"), "acquisitions"), 1u);
  EXPECT_EQ(s.object_named("rwlock")->at("kind"), "rwlock_read");
  EXPECT_EQ(s.object_named("spin")->at("kind"), "spinlock");
  EXPECT_EQ(s.object_named("barrier")->at("kind"), "barrier");
  EXPECT_EQ(s.object_named("queue_cond")->at("kind"), "condition");
  for (const Record& o : s.objects) EXPECT_EQ(number(o, "waiters"), 0u) << o.at("name");
  expect_balanced_stacks(s);
}

TEST(RuntimeE2E, CxxThreadsAndLocksGoThroughTheWrappers) {
  const RunResult r = run_program("cxx_threads", {});
  expect_clean_exit(r);
  const Summary& s = r.summary;
  EXPECT_EQ(acquisitions(s, "counter_mutex"), 40000u);
  EXPECT_EQ(acquisitions(s, "recursive"), 100u);
  EXPECT_EQ(acquisitions(s, "shared"), 50u);
  EXPECT_EQ(acquisitions(s, "timed"), 10u);
  EXPECT_LE(acquisitions(s, "cv"), 20u);
  // Four std::threads plus ping_pong's, each created by main.
  EXPECT_EQ(s.threads.size(), 6u);
  for (int i = 1; i <= 5; ++i) EXPECT_EQ(number(*s.thread_index(i), "parent"), 0u);
  EXPECT_EQ(s.calls_of("_Z8add_manyv"), 4u);
  expect_balanced_stacks(s);
}

TEST(RuntimeE2E, AContendedMutexIsCountedContended) {
  const RunResult r = run_program("contention", {"mutex"});
  expect_clean_exit(r);
  const Record* slow = r.summary.object_named("slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(number(*slow, "acquisitions"), 2u);
  EXPECT_EQ(number(*slow, "contended"), 1u);
  EXPECT_EQ(number(*slow, "waiters"), 0u);
}

TEST(RuntimeE2E, AContendedSpinLockIsCountedContended) {
  const RunResult r = run_program("contention", {"spin"});
  expect_clean_exit(r);
  const Record* spin = r.summary.object_named("spin");
  ASSERT_NE(spin, nullptr);
  EXPECT_EQ(spin->at("kind"), "spinlock");
  EXPECT_EQ(number(*spin, "acquisitions"), 2u);
  EXPECT_EQ(number(*spin, "contended"), 1u);
}

TEST(RuntimeE2E, BlockedTimeAtABarrierIsMeasured) {
  const RunResult r = run_program("contention", {"barrier"});
  expect_clean_exit(r);
  const Record* late = r.summary.object_named("late");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(number(*late, "acquisitions"), 2u);
  EXPECT_EQ(number(*late, "contended"), 1u);  // the late arrival passes
  const double wait_ms = number(*late, "wait_ns") / 1e6;
  EXPECT_GT(wait_ms, 150);  // the other thread arrives 200 ms late
  EXPECT_LT(wait_ms, 1000);
  const Record* waiter = r.summary.thread_named("waiter");
  ASSERT_NE(waiter, nullptr);
  EXPECT_GT(number(*waiter, "blocked_ns") / 1e6, 150);
  EXPECT_EQ(number(*waiter, "spinning_ns"), 0u);
}

TEST(RuntimeE2E, UserMarkedSpinRegionCountsAsSpinning) {
  const RunResult r = run_program("contention", {"region"});
  expect_clean_exit(r);
  const Record* main_thread = r.summary.thread_index(0);
  ASSERT_NE(main_thread, nullptr);
  const double spinning_ms = number(*main_thread, "spinning_ns") / 1e6;
  EXPECT_GT(spinning_ms, 90);
  EXPECT_LT(spinning_ms, 1000);
  const Record* flag = r.summary.object_named("flag");
  ASSERT_NE(flag, nullptr);
  EXPECT_EQ(flag->at("kind"), "spin_region");
}

TEST(RuntimeE2E, RecursionDeeperThanTheStackIsCountedAndStaysBalanced) {
  RunOptions options;
  options.env["QUARTZ_STACK_CAPACITY"] = "64";
  const RunResult r = run_program("stack_robustness", {"deep"}, options);
  expect_clean_exit(r);
  EXPECT_EQ(printed_values(r.out)["depth"], "2000");
  const Record* main_thread = r.summary.thread_index(0);
  ASSERT_NE(main_thread, nullptr);
  // main + 2001 ping/pong frames, 64 stored.
  EXPECT_EQ(number(*main_thread, "overflows"), 2002u - 64u);
  EXPECT_EQ(r.summary.calls_of("ping") + r.summary.calls_of("pong"), 2001u);
  expect_balanced_stacks(r.summary);
}

TEST(RuntimeE2E, ImmediateRecursionFoldsWithoutOverflow) {
  RunOptions options;
  options.env["QUARTZ_STACK_CAPACITY"] = "16";
  const RunResult r = run_program("stack_robustness", {"repeat"}, options);
  expect_clean_exit(r);
  EXPECT_EQ(number(*r.summary.thread_index(0), "overflows"), 0u);
  EXPECT_EQ(r.summary.calls_of("repeat"), 100001u);
  EXPECT_EQ(r.summary.edge_calls("repeat", "repeat"), 100000u);
  expect_balanced_stacks(r.summary);
}

TEST(RuntimeE2E, LongjmpOutOfInstrumentedFramesResynchronises) {
  const RunResult r = run_program("stack_robustness", {"longjmp"});
  expect_clean_exit(r);
  EXPECT_EQ(r.summary.calls_of("dive"), 51u * 1000u);
  EXPECT_EQ(r.summary.calls_of("jump_from_depth"), 1000u);
  expect_balanced_stacks(r.summary);
}

TEST(RuntimeE2E, SignalHandlersRunningInstrumentedCodeAreCounted) {
  const RunResult r = run_program("stack_robustness", {"signals"});
  expect_clean_exit(r);
  auto values = printed_values(r.out);
  const unsigned long long ticks = std::strtoull(values["ticks"].c_str(), nullptr, 10);
  EXPECT_GT(ticks, 100u) << "the timer did not fire";
  EXPECT_EQ(r.summary.calls_of("on_tick"), ticks);
  EXPECT_EQ(r.summary.calls_of("on_tick_work"), ticks);
  expect_balanced_stacks(r.summary);
}

TEST(RuntimeE2E, ExceptionsThroughInstrumentedAndUninstrumentedCleanupFrames) {
  const RunResult r = run_program("exceptions", {});
  expect_clean_exit(r);
  EXPECT_EQ(printed_values(r.out)["caught"], "200");
  EXPECT_EQ(r.summary.calls_of("c_layer"), 100u * 11u);
  EXPECT_EQ(r.summary.calls_of("_Z9cxx_layeri"), 100u * 21u);
  expect_balanced_stacks(r.summary);
}

TEST(RuntimeE2E, NewThreadsInheritTheCreatorsStackAndNames) {
  const RunResult r = run_program("thread_lifecycle", {"inherit"});
  expect_clean_exit(r);
  const Summary& s = r.summary;
  // A worker's first procedure is called on behalf of the spawner.
  EXPECT_EQ(s.edge_calls("spawner", "worker"), 4u);
  EXPECT_EQ(s.calls_of("leaf"), 400u);
  std::set<std::string> names;
  for (int i = 1; i <= 4; ++i) {
    const Record* t = s.thread_index(i);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->at("phase"), "exited");
    EXPECT_EQ(number(*t, "parent"), 0u);
    EXPECT_EQ(t->at("start"), "worker");
    names.insert(t->at("name"));
  }
  EXPECT_EQ(names, (std::set<std::string>{"worker-0", "worker-1", "worker-2", "worker-3"}));
  expect_balanced_stacks(s);
}

TEST(RuntimeE2E, TenThousandThreadsWithBoundedMemory) {
  const RunResult r = run_program("thread_lifecycle", {"churn"});
  expect_clean_exit(r);
  const long growth_kb = std::strtol(printed_values(r.out)["rss_growth_kb"].c_str(), nullptr, 10);
  // Blocks are reused: 10,000 threads leave 10,000 records of 128 bytes (1.25 MB) and no
  // more blocks than were alive at once. (A sanitizer's own bookkeeping grows instead.)
  if (!QUARTZ_SANITIZED) {
    EXPECT_LT(growth_kb, 8 * 1024);
  }
  EXPECT_LE(number(r.summary.process, "slots"), 128u);
  EXPECT_EQ(r.summary.calls_of("short_life"), 10200u);
  EXPECT_EQ(number(r.summary.process, "threads"), 10201u);
}

TEST(RuntimeE2E, ThreadsCreatedBehindOurBackAreRegisteredOnTheirFirstEvent) {
  const RunResult r = run_program("thread_lifecycle", {"unseen"});
  expect_clean_exit(r);
  const Record* a = r.summary.thread_named("worker-10");
  const Record* b = r.summary.thread_named("worker-11");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->at("parent"), "-1");  // creator unknown
  EXPECT_EQ(r.summary.calls_of("leaf"), 200u);
  EXPECT_EQ(r.summary.calls_of("worker"), 2u);
}

TEST(RuntimeE2E, ForkGivesTheChildCleanStateAndLeavesTheParentAlone) {
  RunOptions options;
  if (QUARTZ_SANITIZED) {
    // LeakSanitizer's exit-time check in a child forked from a threaded parent can wait
    // forever for an allocator lock another parent thread held at the fork.
    const char* asan = std::getenv("ASAN_OPTIONS");
    options.env["ASAN_OPTIONS"] = std::string(asan ? asan : "") + ":detect_leaks=0";
  }
  const RunResult r = run_program("process_lifecycle", {"fork"}, options);
  expect_clean_exit(r);
  auto values = printed_values(r.out);
  EXPECT_EQ(values["child_status"], "0");
  EXPECT_EQ(values["child_preload"], "none");  // exec'd programs are not profiled
  // The parent never counted the child's work (it only named the lock).
  EXPECT_EQ(acquisitions(r.summary, "child_lock"), 0u);
  EXPECT_GT(acquisitions(r.summary, "parent_lock"), 0u);
  // The child's own summary: one thread, only its own lock work.
  const Summary child = read_summary(r.summary_path + "." + values["child_pid"]);
  std::remove((r.summary_path + "." + values["child_pid"]).c_str());
  ASSERT_TRUE(child.present);
  ASSERT_EQ(child.threads.size(), 1u);
  EXPECT_EQ(number(child.threads[0], "index"), 0u);
  EXPECT_EQ(acquisitions(child, "child_lock"), 300u);
  const Record* parent_lock = child.object_named("parent_lock");
  if (parent_lock) {
    EXPECT_EQ(number(*parent_lock, "acquisitions"), 0u);
  }
  EXPECT_EQ(child.calls_of("step"), 300u);
}

TEST(RuntimeE2E, ExitFromASecondaryThreadWritesTheSummary) {
  const RunResult r = run_program("process_lifecycle", {"exit-thread"});
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_TRUE(r.summary.present);
  EXPECT_EQ(r.summary.calls_of("exiter"), 1u);
}

TEST(RuntimeE2E, PthreadExitFromMainLetsWorkersFinish) {
  const RunResult r = run_program("process_lifecycle", {"exit-main"});
  expect_clean_exit(r);
  EXPECT_EQ(r.summary.calls_of("step"), 600u);
  EXPECT_EQ(r.summary.threads.size(), 4u);
}

TEST(RuntimeE2E, AnAllocatorThatLocksWorksBeforeAndDuringStartUp) {
  if (QUARTZ_SANITIZED) GTEST_SKIP() << "the program replaces malloc, which a sanitizer owns";
  const RunResult r = run_program("early_allocator", {});
  expect_clean_exit(r);
  EXPECT_EQ(printed_values(r.out)["touched"], "1");
  EXPECT_GE(r.summary.calls_of("early_constructor"), 1u);
  EXPECT_GE(r.summary.calls_of("malloc"), 201u);
  bool heap_lock_seen = false;
  for (const Record& o : r.summary.objects) {
    heap_lock_seen |= o.at("kind") == "mutex" && number(o, "acquisitions") >= 200;
  }
  EXPECT_TRUE(heap_lock_seen);
}

TEST(RuntimeE2E, DisabledRuntimePassesEverythingThrough) {
  RunOptions options;
  options.env["QUARTZ_DISABLE"] = "1";
  const RunResult r = run_program("sync_objects", {}, options);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_FALSE(r.summary.present);
}

TEST(RuntimeE2E, WithoutTheRuntimeThePublicApiIsANoOp) {
  RunOptions options;
  options.preload = false;
  for (const char* mode : {"region", "mutex"}) {
    const RunResult r = run_program("contention", {mode}, options);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(r.summary.present);
  }
}

}  // namespace
}  // namespace quartz::test
