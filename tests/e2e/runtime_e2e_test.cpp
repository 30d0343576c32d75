// End-to-end: programs with known behaviour run under the preloaded runtime. Each test
// checks that the program behaved exactly as without Quartz and that the capture it wrote
// (what users get, read by the offline reader) holds what the program did by construction.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>

#include "format/capture_format.h"
#include "harness.h"

namespace quartz::test {
namespace {

using profile::ObjectInfo;
using profile::ThreadInfo;
namespace run_keys = capture::run_keys;

// A clean exit and a final capture; the capture of a run whose checks fail otherwise.
const Capture& expect_clean_exit(const RunResult& r) {
  EXPECT_EQ(r.signal, 0) << "killed by signal " << r.signal << "\n" << r.out;
  EXPECT_EQ(r.exit_code, 0) << r.out;
  static const Capture kNone{};
  if (!r.capture) {
    ADD_FAILURE() << "no capture written";
    return kNone;
  }
  EXPECT_TRUE(r.capture->run.final) << "the capture is a checkpoint, not the end of the run";
  return *r.capture;
}

// No thread is still inside anything once the program is done (every procedure returned,
// every object waited for was acquired and released), and no exit went unmatched.
void expect_balanced_stacks(const Capture& c) {
  EXPECT_EQ(c.info(run_keys::kOpenStackEntries), 0u);
  for (const ThreadInfo& t : c.run.threads)
    EXPECT_EQ(t.unmatched_exits, 0u) << "thread " << t.index;
}

uint64_t acquisitions(const Capture& c, const std::string& name) {
  const ObjectInfo* o = c.object_named(name);
  EXPECT_NE(o, nullptr) << "object " << name << " not seen";
  return o ? o->acquisitions : 0;
}

uint64_t contended(const Capture& c, const std::string& name) {
  const ObjectInfo* o = c.object_named(name);
  EXPECT_NE(o, nullptr) << "object " << name << " not seen";
  return o ? o->contended : 0;
}

uint32_t kind(const Capture& c, const std::string& name) {
  const ObjectInfo* o = c.object_named(name);
  EXPECT_NE(o, nullptr) << "object " << name << " not seen";
  return o ? o->kind : capture::kUnknownKind;
}

TEST(RuntimeE2E, EverySynchronizationCallIsCountedAndBehavesAsWithoutQuartz) {
  const RunResult r = run_program("sync_objects", {});
  const Capture& s = expect_clean_exit(r);
  EXPECT_EQ(acquisitions(s, "normal"), 1000u);
  EXPECT_EQ(acquisitions(s, "recursive"), 6u);
  EXPECT_EQ(acquisitions(s, "errcheck"), 1u);
  EXPECT_EQ(acquisitions(s, "trylock"), 2u);  // main's trylock after the holder left, + holder
  EXPECT_EQ(acquisitions(s, "timed"), 2u);    // the holder's lock + main's successful timedlock
  EXPECT_EQ(acquisitions(s, "rwlock"), 4u);
  EXPECT_EQ(acquisitions(s, "spin"), 100u);
  EXPECT_EQ(acquisitions(s, "barrier"), 30u);
  EXPECT_EQ(contended(s, "barrier"), 20u);
  EXPECT_EQ(acquisitions(s, "sem"), 6u);
  EXPECT_EQ(contended(s, "sem"), 1u);
  EXPECT_GE(acquisitions(s, "queue_cond"), 1u);
  EXPECT_EQ(kind(s, "rwlock"), capture::kRwlockRead);
  EXPECT_EQ(kind(s, "spin"), capture::kSpinlock);
  EXPECT_EQ(kind(s, "barrier"), capture::kBarrier);
  EXPECT_EQ(kind(s, "queue_cond"), capture::kCondition);
  // Nothing still waited for (the semaphore's waiter included), every stack balanced.
  expect_balanced_stacks(s);
}

TEST(RuntimeE2E, CxxThreadsAndLocksGoThroughTheWrappers) {
  const RunResult r = run_program("cxx_threads", {});
  const Capture& s = expect_clean_exit(r);
  EXPECT_EQ(acquisitions(s, "counter_mutex"), 40000u);
  EXPECT_EQ(acquisitions(s, "recursive"), 100u);
  EXPECT_EQ(acquisitions(s, "shared"), 50u);
  EXPECT_EQ(acquisitions(s, "timed"), 10u);
  EXPECT_LE(acquisitions(s, "cv"), 20u);
  // Four std::threads plus ping_pong's, each created by main.
  EXPECT_EQ(s.run.threads.size(), 6u);
  for (uint32_t i = 1; i <= 5; ++i) {
    const ThreadInfo* t = s.thread_index(i);
    ASSERT_NE(t, nullptr) << "thread " << i;
    EXPECT_EQ(t->parent, 0u);
  }
  EXPECT_EQ(s.calls_of("add_many()"), 4u);
  expect_balanced_stacks(s);
}

TEST(RuntimeE2E, AContendedMutexIsCountedContended) {
  const RunResult r = run_program("contention", {"mutex"});
  const Capture& c = expect_clean_exit(r);
  const ObjectInfo* slow = c.object_named("slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->acquisitions, 2u);
  EXPECT_EQ(slow->contended, 1u);
  EXPECT_EQ(c.info(run_keys::kOpenStackEntries), 0u);  // the waiter is not waiting any more
}

TEST(RuntimeE2E, AContendedSpinLockIsCountedContended) {
  const RunResult r = run_program("contention", {"spin"});
  const Capture& c = expect_clean_exit(r);
  const ObjectInfo* spin = c.object_named("spin");
  ASSERT_NE(spin, nullptr);
  EXPECT_EQ(spin->kind, capture::kSpinlock);
  EXPECT_EQ(spin->acquisitions, 2u);
  EXPECT_EQ(spin->contended, 1u);
}

TEST(RuntimeE2E, BlockedTimeAtABarrierIsMeasured) {
  const RunResult r = run_program("contention", {"barrier"});
  const Capture& c = expect_clean_exit(r);
  const ObjectInfo* late = c.object_named("late");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->acquisitions, 2u);
  EXPECT_EQ(late->contended, 1u);  // the late arrival passes
  const double wait_ms = late->exact_wait_ns / 1e6;
  EXPECT_GT(wait_ms, 150);  // the other thread arrives 200 ms late
  EXPECT_LT(wait_ms, 1000);
  const ThreadInfo* waiter = c.thread_named("waiter");
  ASSERT_NE(waiter, nullptr);
  EXPECT_GT(waiter->exact_blocked_ns / 1e6, 150);
  EXPECT_EQ(waiter->exact_spinning_ns, 0u);
}

TEST(RuntimeE2E, UserMarkedSpinRegionCountsAsSpinning) {
  const RunResult r = run_program("contention", {"region"});
  const Capture& c = expect_clean_exit(r);
  const ThreadInfo* main_thread = c.thread_index(0);
  ASSERT_NE(main_thread, nullptr);
  const double spinning_ms = main_thread->exact_spinning_ns / 1e6;
  EXPECT_GT(spinning_ms, 90);
  EXPECT_LT(spinning_ms, 1000);
  EXPECT_EQ(kind(c, "flag"), capture::kSpinRegion);
}

TEST(RuntimeE2E, RecursionDeeperThanTheStackIsCountedAndStaysBalanced) {
  RunOptions options;
  options.env["QUARTZ_STACK_CAPACITY"] = "64";
  const RunResult r = run_program("stack_robustness", {"deep"}, options);
  const Capture& c = expect_clean_exit(r);
  EXPECT_EQ(printed_values(r.out)["depth"], "2000");
  const ThreadInfo* main_thread = c.thread_index(0);
  ASSERT_NE(main_thread, nullptr);
  // main + 2001 ping/pong frames, 64 stored.
  EXPECT_EQ(main_thread->stack_overflows, 2002u - 64u);
  EXPECT_EQ(c.calls_of("ping") + c.calls_of("pong"), 2001u);
  expect_balanced_stacks(c);
}

TEST(RuntimeE2E, ImmediateRecursionFoldsWithoutOverflow) {
  RunOptions options;
  options.env["QUARTZ_STACK_CAPACITY"] = "16";
  const RunResult r = run_program("stack_robustness", {"repeat"}, options);
  const Capture& c = expect_clean_exit(r);
  const ThreadInfo* main_thread = c.thread_index(0);
  ASSERT_NE(main_thread, nullptr);
  EXPECT_EQ(main_thread->stack_overflows, 0u);
  EXPECT_EQ(c.calls_of("repeat"), 100001u);
  EXPECT_EQ(c.edge_calls("repeat", "repeat"), 100000u);
  expect_balanced_stacks(c);
}

TEST(RuntimeE2E, LongjmpOutOfInstrumentedFramesResynchronises) {
  const RunResult r = run_program("stack_robustness", {"longjmp"});
  const Capture& c = expect_clean_exit(r);
  EXPECT_EQ(c.calls_of("dive"), 51u * 1000u);
  EXPECT_EQ(c.calls_of("jump_from_depth"), 1000u);
  expect_balanced_stacks(c);
}

// A handler landing between two stores of the enter hook's edge cache once left the
// recursing procedure's entry paired with the handler's counter: ping's 19 self-calls were
// counted as calls of on_tick (219 against 200, one run in six).
TEST(RuntimeE2E, SignalHandlersRunningInstrumentedCodeAreCounted) {
  const RunResult r = run_program("stack_robustness", {"signals"});
  const Capture& c = expect_clean_exit(r);
  auto values = printed_values(r.out);
  const uint64_t ticks = std::strtoull(values["ticks"].c_str(), nullptr, 10);
  EXPECT_GT(ticks, 100u) << "the timer did not fire";
  EXPECT_EQ(c.calls_of("on_tick"), ticks);
  EXPECT_EQ(c.calls_of("on_tick_work"), ticks);
  expect_balanced_stacks(c);
}

TEST(RuntimeE2E, ExceptionsThroughInstrumentedAndUninstrumentedCleanupFrames) {
  const RunResult r = run_program("exceptions", {});
  const Capture& c = expect_clean_exit(r);
  EXPECT_EQ(printed_values(r.out)["caught"], "200");
  EXPECT_EQ(c.calls_of("c_layer"), 100u * 11u);
  EXPECT_EQ(c.calls_of("cxx_layer(int)"), 100u * 21u);
  expect_balanced_stacks(c);
}

TEST(RuntimeE2E, NewThreadsInheritTheCreatorsStackAndNames) {
  const RunResult r = run_program("thread_lifecycle", {"inherit"});
  const Capture& s = expect_clean_exit(r);
  // A worker's first procedure is called on behalf of the spawner.
  EXPECT_EQ(s.edge_calls("spawner", "worker"), 4u);
  EXPECT_EQ(s.calls_of("leaf"), 400u);
  std::set<std::string> names;
  for (uint32_t i = 1; i <= 4; ++i) {
    const ThreadInfo* t = s.thread_index(i);
    ASSERT_NE(t, nullptr);
    EXPECT_NE(t->exited_ns, 0u) << "thread " << i << " has not exited";
    EXPECT_EQ(t->parent, 0u);
    EXPECT_EQ(s.start_of(*t), "worker");
    names.insert(t->name);
  }
  EXPECT_EQ(names, (std::set<std::string>{"worker-0", "worker-1", "worker-2", "worker-3"}));
  expect_balanced_stacks(s);
}

TEST(RuntimeE2E, TenThousandThreadsWithBoundedMemory) {
  // The runtime's memory, without the sampler (whose tables and capture grow with the
  // threads it reports, and which keeps an ended thread's block until its next snapshot).
  // Not under a sanitizer, whose own bookkeeping grows instead.
  if (!QUARTZ_SANITIZED) {
    RunOptions counting_only;
    counting_only.capture = false;
    const RunResult counted = run_program("thread_lifecycle", {"churn"}, counting_only);
    EXPECT_EQ(counted.exit_code, 0) << counted.out;
    const long growth_kb =
        std::strtol(printed_values(counted.out)["rss_growth_kb"].c_str(), nullptr, 10);
    // Blocks are reused: 10,000 threads leave 10,000 records of 128 bytes (1.25 MB) and no
    // more blocks than were alive at once.
    EXPECT_LT(growth_kb, 8 * 1024);
  }
  // Every thread counted; a sanitizer's thread start costs ~1 ms, so 1,000 there.
  const uint64_t threads = QUARTZ_SANITIZED ? 1000 : 10000;
  const RunResult r = run_program("thread_lifecycle", {"churn", std::to_string(threads)});
  const Capture& c = expect_clean_exit(r);
  EXPECT_EQ(c.calls_of("short_life"), threads + 200);
  EXPECT_EQ(c.run.threads.size(), threads + 201);
}

TEST(RuntimeE2E, ThreadsCreatedBehindOurBackAreRegisteredOnTheirFirstEvent) {
  const RunResult r = run_program("thread_lifecycle", {"unseen"});
  const Capture& c = expect_clean_exit(r);
  const ThreadInfo* a = c.thread_named("worker-10");
  const ThreadInfo* b = c.thread_named("worker-11");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->parent, capture::kNoParent);  // creator unknown
  EXPECT_EQ(c.calls_of("leaf"), 200u);
  EXPECT_EQ(c.calls_of("worker"), 2u);
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
  const Capture& c = expect_clean_exit(r);
  auto values = printed_values(r.out);
  EXPECT_EQ(values["child_status"], "0");
  EXPECT_EQ(values["child_preload"], "none");  // exec'd programs are not profiled
  // The parent never counted the child's work (it only named the lock).
  EXPECT_EQ(acquisitions(c, "child_lock"), 0u);
  EXPECT_GT(acquisitions(c, "parent_lock"), 0u);
  // The child's own capture: one thread, only its own lock work.
  const std::string child_path = r.capture_path + "." + values["child_pid"];
  const std::optional<Capture> child = read_capture_file(child_path);
  std::remove(child_path.c_str());
  ASSERT_TRUE(child.has_value()) << "no capture from the child";
  EXPECT_TRUE(child->run.final);
  // Its thread times count from the run's start, as the parent's do.
  EXPECT_EQ(child->run.text(run_keys::kStartRealtimeNs), c.run.text(run_keys::kStartRealtimeNs));
  ASSERT_EQ(child->run.threads.size(), 1u);
  EXPECT_EQ(child->run.threads[0].index, 0u);
  EXPECT_EQ(acquisitions(*child, "child_lock"), 300u);
  if (const ObjectInfo* parent_lock = child->object_named("parent_lock")) {
    EXPECT_EQ(parent_lock->acquisitions, 0u);
  }
  EXPECT_EQ(child->calls_of("step"), 300u);
}

TEST(RuntimeE2E, ExitFromASecondaryThreadWritesTheCapture) {
  const RunResult r = run_program("process_lifecycle", {"exit-thread"});
  EXPECT_EQ(r.exit_code, 3);
  ASSERT_TRUE(r.capture.has_value());
  EXPECT_TRUE(r.capture->run.final);
  EXPECT_EQ(r.capture->calls_of("exiter"), 1u);
}

TEST(RuntimeE2E, PthreadExitFromMainLetsWorkersFinish) {
  const RunResult r = run_program("process_lifecycle", {"exit-main"});
  const Capture& c = expect_clean_exit(r);
  EXPECT_EQ(c.calls_of("step"), 600u);
  EXPECT_EQ(c.run.threads.size(), 4u);
}

TEST(RuntimeE2E, AnAllocatorThatLocksWorksBeforeAndDuringStartUp) {
  if (QUARTZ_SANITIZED) GTEST_SKIP() << "the program replaces malloc, which a sanitizer owns";
  const RunResult r = run_program("early_allocator", {});
  const Capture& c = expect_clean_exit(r);
  EXPECT_EQ(printed_values(r.out)["touched"], "1");
  EXPECT_GE(c.calls_of("early_constructor"), 1u);
  EXPECT_GE(c.calls_of("malloc"), 201u);
  bool heap_lock_seen = false;
  for (const ObjectInfo& o : c.run.objects) {
    heap_lock_seen |= o.kind == capture::kMutex && o.acquisitions >= 200;
  }
  EXPECT_TRUE(heap_lock_seen);
}

TEST(RuntimeE2E, DisabledRuntimePassesEverythingThrough) {
  RunOptions options;
  options.env["QUARTZ_DISABLE"] = "1";
  const RunResult r = run_program("sync_objects", {}, options);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_FALSE(r.capture.has_value());
}

TEST(RuntimeE2E, WithoutTheRuntimeThePublicApiIsANoOp) {
  RunOptions options;
  options.preload = false;
  for (const char* mode : {"region", "mutex"}) {
    const RunResult r = run_program("contention", {mode}, options);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(r.capture.has_value());
  }
}

}  // namespace
}  // namespace quartz::test
