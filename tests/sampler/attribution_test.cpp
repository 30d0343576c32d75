// DESIGN.md §2, checked on hand-built snapshots whose answers are worked out by hand.
#include "sampler/attribution.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace quartz::sampler {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kMain = 0x100, kF = 0x200, kG = 0x300, kH = 0x400, kLock = 0x9000;

class AttributionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tables.init(RecordShape{2, 9}, ProfileTables::Limits{1024, 256, 256, 256}));
    ASSERT_TRUE(window.init(64, 1024, 64));
    main_ctx = tables.context(kNone, kMain, capture::kProcedure);
    f = tables.context(main_ctx, kF, capture::kProcedure);
    g = tables.context(main_ctx, kG, capture::kProcedure);
    h = tables.context(main_ctx, kH, capture::kProcedure);
    config.processors = 2;
  }

  // Adds a snapshot of `duration_ns` with the given threads (index, context, state, role).
  struct T {
    uint32_t thread;
    uint32_t context;
    uint8_t state;
    uint8_t role = kRoleNone;
    float run = -1;                // the sample's own CPU clock share; < 0: none
    float present = 1;             // the share of the interval the thread existed
    uint32_t ran_context = kNone;  // blocked: where it ran before its wait (`run` of it)
    uint32_t released = kNone;     // waiting: the mutex its wait released (a condition's)
  };
  void snapshot(uint64_t duration_ns, std::vector<T> threads, bool entries_off = false) {
    ASSERT_TRUE(window.begin_snapshot(duration_ns, entries_off));
    for (const T& t : threads) {
      uint32_t position = 0;
      bool created;
      WindowThread* w = window.thread(t.thread, &position, &created);
      ASSERT_NE(w, nullptr);
      ThreadSample sample{t.thread, position, t.context, t.state, t.role, 0, t.run, t.present};
      sample.ran_context = t.ran_context;
      sample.ran_state = capture::kBusy;
      sample.released = t.released;
      ASSERT_TRUE(window.add_sample(sample));
    }
  }
  // Gives a thread a measured window: `cpu` seconds of processor time.
  void measured(uint32_t thread, double cpu_s, double runqueue_s = 0, uint64_t hook_events = 0) {
    uint32_t position = 0;
    bool created;
    WindowThread* w = window.thread(thread, &position, &created);
    w->measured = 1;
    w->cpu_ns = static_cast<uint64_t>(cpu_s * kSecond);
    w->runqueue_ns = static_cast<uint64_t>(runqueue_s * kSecond);
    w->hook_events = hook_events;
  }
  double normalized(const double* record, bool behalf) {
    const RecordShape& s = tables.shape();
    return std::accumulate(record + s.normalized(behalf), record + s.normalized(behalf) + s.bins(),
                           0.0);
  }
  double normalized_bin(const double* record, uint32_t bin) {
    const RecordShape& s = tables.shape();
    return record[s.normalized(false) + bin] + record[s.normalized(true) + bin];
  }
  double processor(const double* record) {
    const RecordShape& s = tables.shape();
    double total = 0;
    for (bool behalf : {false, true}) {
      total += std::accumulate(record + s.processor(behalf),
                               record + s.processor(behalf) + s.bins(), 0.0);
    }
    return total;
  }
  double state(const double* record, uint32_t which) {
    const RecordShape& s = tables.shape();
    return record[s.state(false) + which] + record[s.state(true) + which];
  }
  const double* procedure(uint64_t address) {
    return tables.procedure_record(tables.procedure(address));
  }
  const double* thread(uint32_t index) { return tables.thread_record(tables.thread(index)); }

  ProfileTables tables;
  Window window;
  AttributionConfig config;
  AttributionTotals totals;
  uint32_t main_ctx = 0, f = 0, g = 0, h = 0;
};

TEST_F(AttributionTest, ParallelThenSerialPhase) {
  // 1 s: two threads busy (f, g); 1 s: thread 0 busy in h, thread 1 blocked in g.
  snapshot(kSecond, {{0, f, capture::kBusy}, {1, g, capture::kBusy}});
  snapshot(kSecond, {{0, h, capture::kBusy}, {1, g, capture::kBlocked}});
  measured(0, 2.0);
  measured(1, 1.0);
  attribute_window(window, tables, config, totals);

  EXPECT_DOUBLE_EQ(totals.elapsed_s, 2.0);
  const double* program = tables.program_record();
  EXPECT_DOUBLE_EQ(normalized(program, false), 2.0);  // the root's normalized time = elapsed
  EXPECT_DOUBLE_EQ(normalized_bin(program, 2), 1.0);  // 1 s with 2 processors busy
  EXPECT_DOUBLE_EQ(normalized_bin(program, 1), 1.0);  // 1 s with 1 busy
  EXPECT_DOUBLE_EQ(normalized(procedure(kF), false), 0.5);
  EXPECT_DOUBLE_EQ(normalized(procedure(kG), false), 0.5);
  EXPECT_DOUBLE_EQ(normalized(procedure(kH), false), 1.0);  // the serial phase weighs double
  EXPECT_DOUBLE_EQ(processor(procedure(kH)), 1.0);
  EXPECT_DOUBLE_EQ(processor(procedure(kF)), 1.0);
  EXPECT_DOUBLE_EQ(normalized(procedure(kMain), false), 0.0);  // never on top
  EXPECT_DOUBLE_EQ(normalized(procedure(kMain), true), 2.0);   // everything on its behalf
  EXPECT_DOUBLE_EQ(state(thread(1), capture::kBlocked), 1.0);
  EXPECT_DOUBLE_EQ(state(thread(1), capture::kBusy), 1.0);
  const double* ctx_h = tables.context_record(h);
  EXPECT_DOUBLE_EQ(ctx_h[tables.shape().context_normalized() + 1], 1.0);
}

TEST_F(AttributionTest, TimeRunBeforeAWaitCountsInItsOwnInterval) {
  // Two pairs hand work back and forth inside one 1 s interval: in each, the first thread
  // ran 0.5 s in f and waits (in g) for its partner, which has run the other 0.5 s in h
  // and is busy at the snapshot. Each pair kept one processor busy all along: two busy.
  snapshot(kSecond, {{0, g, capture::kBlocked, kRoleNone, 0.5f, 1, f},
                     {1, h, capture::kBusy, kRoleNone, 0.5f},
                     {2, g, capture::kBlocked, kRoleNone, 0.5f, 1, f},
                     {3, h, capture::kBusy, kRoleNone, 0.5f}});
  attribute_window(window, tables, config, totals);
  const double* program = tables.program_record();
  EXPECT_NEAR(normalized_bin(program, 2), 1.0, 1e-6);
  EXPECT_NEAR(normalized_bin(program, 1), 0.0, 1e-6);
  EXPECT_NEAR(normalized(program, false), 1.0, 1e-6);  // the root's normalized time = elapsed
  // f, where the waiting threads ran, has their processor time and its normalized share,
  // g their waits.
  EXPECT_NEAR(processor(procedure(kF)), 1.0, 1e-6);
  EXPECT_NEAR(normalized(procedure(kF), false), 0.5, 1e-6);
  EXPECT_NEAR(normalized(procedure(kH), false), 0.5, 1e-6);
  EXPECT_NEAR(processor(procedure(kG)), 0.0, 1e-6);
  EXPECT_NEAR(state(procedure(kG), capture::kBlocked), 1.0, 1e-6);
  EXPECT_NEAR(state(thread(0), capture::kBusy), 0.5, 1e-6);
  EXPECT_NEAR(state(thread(0), capture::kBlocked), 0.5, 1e-6);
  EXPECT_NEAR(normalized(procedure(kMain), true), 1.0, 1e-6);  // every part on its behalf
}

TEST_F(AttributionTest, AThreadShorterThanTheIntervalIsCreditedWhatItUsedWhileItLived) {
  // 1 s: thread 0 runs throughout in f; thread 1 lives 100 ms of it in g and its clock says
  // it used 50 ms (a model's share of the whole interval would give it up to 1 s).
  snapshot(kSecond, {{0, f, capture::kBusy, kRoleNone, 1.0f},
                     {1, g, capture::kBusy, kRoleNone, 0.05f, 0.1f}});
  attribute_window(window, tables, config, totals);
  const double e = 1.0 + 0.05f;
  EXPECT_NEAR(processor(thread(1)), 0.05, 1e-6);
  EXPECT_NEAR(state(thread(1), capture::kBusy), 0.05, 1e-6);
  // Its states add up to the 100 ms it lived; thread 0's to the whole second.
  double lived = 0, whole = 0;
  for (uint32_t st = 0; st < capture::kStateCount; ++st) {
    lived += state(thread(1), st);
    whole += state(thread(0), st);
  }
  EXPECT_NEAR(lived, 0.1, 1e-6);
  EXPECT_NEAR(whole, 1.0, 1e-6);
  EXPECT_NEAR(normalized(procedure(kG), false), 0.05f / e, 1e-6);
  // e = 1.05: one processor busy 95% of the second, two 5%.
  EXPECT_NEAR(normalized_bin(tables.program_record(), 1), 2 - e, 1e-6);
  EXPECT_NEAR(normalized_bin(tables.program_record(), 2), e - 1, 1e-6);
}

TEST_F(AttributionTest, ProcessorsBusyAddUpToTheClocksBeyondAWholeNumberAndBeyondP) {
  // 1 s in which the clocks say three threads ran 2.5 s on 2 processors (a late reading),
  // then 1 s with one thread running: the 0.5 s above P belongs to the second second, which
  // has room for it. Bins: all of the first second at 2; half of the second at 1, half at 2.
  snapshot(kSecond, {{0, f, capture::kBusy, kRoleNone, 1.0f},
                     {1, g, capture::kBusy, kRoleNone, 1.0f},
                     {2, h, capture::kBusy, kRoleNone, 0.5f}});
  snapshot(kSecond, {{0, f, capture::kBusy, kRoleNone, 1.0f},
                     {1, g, capture::kBlocked},
                     {2, h, capture::kBlocked}});
  attribute_window(window, tables, config, totals);
  const double* program = tables.program_record();
  EXPECT_NEAR(normalized_bin(program, 1), 0.5, 1e-6);
  EXPECT_NEAR(normalized_bin(program, 2), 1.5, 1e-6);
  EXPECT_NEAR(processor(program), 3.5, 1e-6);  // what the clocks say: 1 x 0.5 + 2 x 1.5
  EXPECT_NEAR(totals.busy_beyond_processors_s, 0.0, 1e-6);
}

TEST_F(AttributionTest, SamplesWithoutAClockReadingShareOnlyWhatTheReadingsLeft) {
  // 1 s read by the clock (0.5 s used), then 1 s without a reading; the window's
  // measurement says 1.5 s in all: the second second gets the 1 s the reading left.
  snapshot(kSecond, {{0, f, capture::kBusy, kRoleNone, 0.5f}});
  snapshot(kSecond, {{0, g, capture::kBusy}});
  measured(0, 1.5);
  attribute_window(window, tables, config, totals);
  EXPECT_NEAR(processor(procedure(kF)), 0.5, 1e-6);
  EXPECT_NEAR(processor(procedure(kG)), 1.0, 1e-6);
  EXPECT_NEAR(processor(thread(0)), 1.5, 1e-6);
}

TEST_F(AttributionTest, NobodyBusySplitsTheIntervalInBinZero) {
  snapshot(kSecond, {{0, f, capture::kBlocked}, {1, g, capture::kBlocked}});
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(normalized_bin(tables.program_record(), 0), 1.0);
  EXPECT_DOUBLE_EQ(normalized_bin(procedure(kF), 0), 0.5);
  EXPECT_DOUBLE_EQ(normalized_bin(procedure(kG), 0), 0.5);
  EXPECT_DOUBLE_EQ(processor(procedure(kF)), 0.0);
}

TEST_F(AttributionTest, UnmeasuredThreadsShareProcessorsByTheModel) {
  // Three busy threads on two processors: f = min(1, P/r) = 2/3 each, e = 2.
  const uint32_t x = tables.context(main_ctx, 0x500, capture::kProcedure);
  snapshot(3 * kSecond, {{0, f, capture::kBusy}, {1, g, capture::kBusy}, {2, x, capture::kBusy}});
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(processor(procedure(kF)), 2.0);
  EXPECT_DOUBLE_EQ(normalized(procedure(kF), false), 1.0);
  EXPECT_NEAR(normalized_bin(tables.program_record(), 2), 3.0, 1e-12);
  EXPECT_NEAR(state(thread(0), capture::kReady), 1.0, 1e-12);
}

TEST_F(AttributionTest, MeasuredShortfallIsReadyOrBlockedInTheKernel) {
  // Thread 0 sampled busy for 2 s but ran 1 s, waited 0.5 s for a processor: the other
  // 0.5 s it was blocked in the kernel (I/O), which is not busy.
  snapshot(kSecond, {{0, f, capture::kBusy}});
  snapshot(kSecond, {{0, f, capture::kBusy}});
  measured(0, 1.0, 0.5);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(state(thread(0), capture::kBusy), 1.0);
  EXPECT_DOUBLE_EQ(state(thread(0), capture::kReady), 0.5);
  EXPECT_DOUBLE_EQ(state(thread(0), capture::kBlocked), 0.5);
  EXPECT_DOUBLE_EQ(processor(procedure(kF)), 1.0);
  EXPECT_DOUBLE_EQ(normalized(tables.program_record(), false), 2.0);
}

TEST_F(AttributionTest, EachSampleUsesItsOwnClockReading) {
  // Within one window the thread computes in f, then waits for I/O in g (runtime state
  // busy: the kernel, not a lock, blocks it). The window-wide share would call both half
  // busy; the per-snapshot readings tell them apart, and the window's run-queue time says
  // how much of g's shortfall was waiting for a processor.
  snapshot(kSecond, {{0, f, capture::kBusy, kRoleNone, 1.0f}});
  snapshot(kSecond, {{0, g, capture::kBusy, kRoleNone, 0.0f}});
  measured(0, 1.0, 0.25);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(processor(procedure(kF)), 1.0);
  EXPECT_DOUBLE_EQ(processor(procedure(kG)), 0.0);
  EXPECT_DOUBLE_EQ(state(procedure(kG), capture::kReady), 0.25);
  EXPECT_DOUBLE_EQ(state(procedure(kG), capture::kBlocked), 0.75);
  EXPECT_DOUBLE_EQ(normalized_bin(procedure(kG), 0), 1.0);  // nobody busy: it gets bin 0
}

TEST_F(AttributionTest, TheLastSnapshotWaitsForTheNextWindow) {
  snapshot(kSecond, {{0, f, capture::kBusy, kRoleNone, 1.0f}, {1, g, capture::kBlocked}});
  snapshot(kSecond,
           {{0, h, capture::kBusy, kRoleNone, 0.5f}, {1, g, capture::kBusy, kRoleNone, 1.0f}});
  attribute_window(window, tables, config, totals, window.snapshot_count() - 1);
  EXPECT_DOUBLE_EQ(totals.elapsed_s, 1.0);
  EXPECT_DOUBLE_EQ(processor(procedure(kH)), 0.0);  // not yet attributed
  window.carry_last_snapshot();
  ASSERT_EQ(window.snapshot_count(), 1u);
  ASSERT_EQ(window.thread_count(), 2u);
  EXPECT_EQ(window.sample(0).thread, 0u);
  EXPECT_EQ(window.sample(0).window_thread, 0u);
  EXPECT_EQ(window.sample(1).window_thread, 1u);
  EXPECT_EQ(window.thread_at(1).thread, 1u);
  EXPECT_EQ(window.thread_at(1).measured, 0u);  // measurements start again
  window.sample(0).run = 1.0f;                  // its trailing half arrived with the next snapshot
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(totals.elapsed_s, 2.0);
  EXPECT_DOUBLE_EQ(processor(procedure(kH)), 1.0);
  EXPECT_DOUBLE_EQ(normalized_bin(tables.program_record(), 2), 1.0);
}

TEST_F(AttributionTest, SpinningConsumesAProcessorButIsNotBusy) {
  snapshot(kSecond, {{0, f, capture::kBusy}, {1, g, capture::kSpinning}});
  measured(0, 1.0);
  measured(1, 1.0);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(state(thread(1), capture::kSpinning), 1.0);
  EXPECT_DOUBLE_EQ(processor(procedure(kG)), 0.0);
  EXPECT_DOUBLE_EQ(normalized(procedure(kF), false), 1.0);  // e = 1: f alone is busy
  EXPECT_DOUBLE_EQ(normalized_bin(tables.program_record(), 1), 1.0);
}

TEST_F(AttributionTest, RecursiveProcedureCountsOnce) {
  const uint32_t f2 = tables.context(f, kF, capture::kProcedure);
  const uint32_t f3 = tables.context(f2, kF, capture::kProcedure);
  snapshot(kSecond, {{0, f3, capture::kBusy}});
  measured(0, 1.0);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(normalized(procedure(kF), false), 1.0);
  EXPECT_DOUBLE_EQ(normalized(procedure(kF), true), 0.0);
  EXPECT_DOUBLE_EQ(processor(procedure(kF)), 1.0);
}

TEST_F(AttributionTest, LocksHoldWaitAndQueue) {
  // Thread 0 holds the lock and computes in h inside it; threads 1 and 2 wait for it.
  const uint32_t held = tables.context(main_ctx, kLock, capture::kMutex);
  const uint32_t inside = tables.context(held, kH, capture::kProcedure);
  const uint32_t waiting = held;  // the same context, waited for instead of held
  snapshot(kSecond, {{0, inside, capture::kBusy},
                     {1, waiting, capture::kBlocked, kRoleWaiting},
                     {2, waiting, capture::kBlocked, kRoleWaiting}});
  measured(0, 1.0);
  attribute_window(window, tables, config, totals);
  const uint32_t lock = tables.find_object(kLock);
  ASSERT_NE(lock, kNone);
  const ObjectEntry& o = tables.object_entry(lock);
  EXPECT_DOUBLE_EQ(o.hold_s, 1.0);
  EXPECT_DOUBLE_EQ(o.wait_blocked_s, 2.0);
  EXPECT_DOUBLE_EQ(o.wait_spinning_s, 0.0);
  EXPECT_DOUBLE_EQ(tables.object_queue(lock)[2], 1.0);  // two waiting, for 1 s
  // The critical section's work is on the lock's behalf and, serialised, weighs fully.
  EXPECT_DOUBLE_EQ(normalized(tables.object_record(lock), true), 1.0);
  EXPECT_DOUBLE_EQ(state(tables.object_record(lock), capture::kBlocked), 2.0);
}

// Three threads waiting for a lock none of them holds, a fourth elsewhere: the lock was
// released and one of the three is being handed it (issue 38: a rwlock taken by 4 threads
// read "4 waiting"). Waiters of a condition variable, which nobody holds, all queue.
TEST_F(AttributionTest, OneWaiterOfALockNobodyHoldsIsBeingHandedIt) {
  constexpr uint64_t kCondition = 0x9100;
  const uint32_t lock = tables.context(main_ctx, kLock, capture::kRwlockWrite);
  const uint32_t condition = tables.context(main_ctx, kCondition, capture::kCondition);
  snapshot(kSecond, {{0, main_ctx, capture::kBusy},
                     {1, lock, capture::kBlocked, kRoleWaiting},
                     {2, lock, capture::kBlocked, kRoleWaiting},
                     {3, lock, capture::kBlocked, kRoleWaiting},
                     {4, condition, capture::kBlocked, kRoleWaiting},
                     {5, condition, capture::kBlocked, kRoleWaiting},
                     {6, condition, capture::kBlocked, kRoleWaiting}});
  measured(0, 1.0);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(tables.object_queue(tables.find_object(kLock))[2], 1.0);
  EXPECT_DOUBLE_EQ(tables.object_queue(tables.find_object(kLock))[3], 0.0);
  EXPECT_DOUBLE_EQ(tables.object_queue(tables.find_object(kCondition))[3], 1.0);
}

// Both threads of a barrier seen in it: the last to arrive is releasing the other, not
// waiting (issue 41: "2 threads waiting" at a barrier of 2 threads).
TEST_F(AttributionTest, AllThreadsInABarrierAreOneWaitingForTheLast) {
  const uint32_t barrier = tables.context(main_ctx, kLock, capture::kOmpBarrier);
  snapshot(kSecond, {{0, barrier, capture::kSpinning, kRoleWaiting},
                     {1, barrier, capture::kSpinning, kRoleWaiting}});
  measured(0, 1.0);
  measured(1, 1.0);
  attribute_window(window, tables, config, totals);
  const uint32_t object = tables.find_object(kLock);
  ASSERT_NE(object, kNone);
  EXPECT_DOUBLE_EQ(tables.object_queue(object)[1], 1.0);
  EXPECT_DOUBLE_EQ(tables.object_queue(object)[2], 0.0);
}

TEST_F(AttributionTest, HookOverheadIsRemovedAndReported) {
  snapshot(kSecond, {{0, f, capture::kBusy}, {1, g, capture::kBusy}});
  measured(0, 1.0, 0, 100'000'000);  // 1e8 hook events at 2 ns: 0.2 s
  measured(1, 1.0);
  config.hook_event_ns = 2.0;
  attribute_window(window, tables, config, totals);
  EXPECT_NEAR(totals.dilation_removed_s, 0.2, 1e-9);
  EXPECT_NEAR(processor(procedure(kF)), 0.8, 1e-9);
  // e = 1.8: the normalized times still add up to the interval.
  EXPECT_NEAR(normalized(procedure(kF), false) + normalized(procedure(kG), false), 1.0, 1e-12);
  EXPECT_NEAR(normalized(procedure(kF), false), 0.8 / 1.8, 1e-9);
  // Its state time keeps the hooks: it was on a processor, not asleep.
  EXPECT_NEAR(state(thread(0), capture::kBusy), 1.0, 1e-9);
  EXPECT_NEAR(state(thread(0), capture::kBlocked), 0.0, 1e-9);
}

// While a trial has g's entry off, a thread read in f stands for where it was last seen
// with it on, if that was below f through g; else it stays where it was read.
TEST_F(AttributionTest, AThreadReadAboveATriedProcedureIsWhereItWasLastSeenBelowIt) {
  const uint32_t in_g = tables.context(f, kG, capture::kProcedure);
  const uint32_t below_g = tables.context(in_g, kH, capture::kProcedure);
  const uint32_t in_h = tables.context(f, kH, capture::kProcedure);
  EXPECT_EQ(seen_below(tables, f, in_g, kG), in_g);
  EXPECT_EQ(seen_below(tables, f, below_g, kG), below_g);
  EXPECT_EQ(seen_below(tables, f, in_h, kG), f);                    // below f, not through g
  EXPECT_EQ(seen_below(tables, f, below_g, kH), f);                 // through g, not the tried h
  EXPECT_EQ(seen_below(tables, g, in_g, kG), g);                    // elsewhere
  EXPECT_EQ(seen_below(tables, f, f, kG), f);                       // where it was read
  EXPECT_EQ(seen_below(tables, f, kNone, kG), f);                   // never seen
  EXPECT_EQ(seen_below(tables, kNone, main_ctx, kMain), main_ctx);  // read with an empty stack
}

// The mutex a condition wait released is not held while the thread waits, right below the
// condition or with the program's procedures between them (a wrapper of its own); the one
// still held further down is.
TEST_F(AttributionTest, ConditionWaitReleasesItsMutex) {
  const uint32_t held = tables.context(main_ctx, kLock, capture::kMutex);
  const uint32_t cond = tables.context(held, 0xA000, capture::kCondition);
  snapshot(kSecond, {{0, cond, capture::kBlocked, kRoleWaiting, -1, 1, kNone, held},
                     {1, f, capture::kBusy}});
  measured(1, 1.0);
  const uint32_t outer = tables.context(f, 0xB000, capture::kMutex);
  const uint32_t inner = tables.context(outer, kLock, capture::kMutex);
  const uint32_t wrapper = tables.context(inner, kG, capture::kProcedure);
  const uint32_t wrapped = tables.context(wrapper, 0xA000, capture::kCondition);
  snapshot(kSecond, {{1, wrapped, capture::kBlocked, kRoleWaiting, -1, 1, kNone, inner}});
  attribute_window(window, tables, config, totals);
  const ObjectEntry& mutex = tables.object_entry(tables.find_object(kLock));
  EXPECT_DOUBLE_EQ(mutex.hold_s, 0.0);
  EXPECT_DOUBLE_EQ(tables.object_entry(tables.find_object(0xB000)).hold_s, 1.0);
  EXPECT_DOUBLE_EQ(tables.object_entry(tables.find_object(0xA000)).wait_blocked_s, 2.0);
}

// Start-up and wind-down starvation (Starvation in attribution.h), on 2 processors: main
// joins; thread 1 works alone for 1 s, then with thread 2 for 1 s, then thread 2 alone for
// 1 s after thread 1 ended; then main alone (serial, not starvation).
TEST_F(AttributionTest, StarvationIsTheProcessorsWithoutAThreadAtWork) {
  const uint32_t join = tables.context(main_ctx, 0xB000, capture::kJoin);
  snapshot(kSecond,
           {{0, join, capture::kBlocked, kRoleWaiting}, {1, f, capture::kBusy, kRoleNone, 1.0f}});
  snapshot(kSecond, {{0, join, capture::kBlocked, kRoleWaiting},
                     {1, f, capture::kBusy, kRoleNone, 1.0f},
                     {2, g, capture::kBusy, kRoleNone, 1.0f}});
  snapshot(kSecond,
           {{0, join, capture::kBlocked, kRoleWaiting}, {2, g, capture::kBusy, kRoleNone, 1.0f}});
  snapshot(kSecond / 2, {{0, h, capture::kBusy, kRoleNone, 1.0f}});
  attribute_window(window, tables, config, totals);
  const Starvation& s = totals.starvation;
  EXPECT_DOUBLE_EQ(s.startup_s, 1.0);  // one processor, 1 s, before both worked at once
  EXPECT_DOUBLE_EQ(s.between_s, 0.0);
  EXPECT_DOUBLE_EQ(s.winddown_s, 1.0);  // after
  EXPECT_TRUE(s.full_seen);
  EXPECT_DOUBLE_EQ(s.first_full_s, 1.0);
  EXPECT_DOUBLE_EQ(s.last_full_s, 2.0);
  // Charged to the thread that ran meanwhile; with one processor busy, its context's time
  // is starvation's, not a serial bottleneck's. Main's serial end is neither.
  EXPECT_DOUBLE_EQ(tables.thread_entry(1).starved_startup_s, 1.0);
  EXPECT_DOUBLE_EQ(tables.thread_entry(1).starved_later_s, 0.0);
  EXPECT_DOUBLE_EQ(tables.thread_entry(2).starved_later_s, 1.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).starved, 1.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(g).starved, 1.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(h).starved, 0.0);
  EXPECT_DOUBLE_EQ(tables.thread_entry(0).starved_later_s, 0.0);
}

// A helper thread that only waits (it never worked) does not make main's serial code
// starvation, and counts as at work once a thread besides main has worked: its processor
// is idle waiting on an object, not for want of a thread.
TEST_F(AttributionTest, ThreadsThatExistAreAtWorkEvenWhenTheyWait) {
  snapshot(kSecond, {{0, h, capture::kBusy, kRoleNone, 1.0f}, {1, g, capture::kBlocked}});
  snapshot(kSecond, {{0, h, capture::kBlocked},
                     {1, g, capture::kBlocked},
                     {2, f, capture::kBusy, kRoleNone, 1.0f}});
  attribute_window(window, tables, config, totals);
  const Starvation& s = totals.starvation;
  EXPECT_DOUBLE_EQ(s.startup_s + s.between_s + s.winddown_s, 0.0);
  EXPECT_TRUE(s.full_seen);  // three threads at work in the second
  EXPECT_DOUBLE_EQ(s.first_full_s, 1.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(h).starved, 0.0);
}

// A thread caught running as it starts, before its first wait, has not yet worked; once it
// has, a processor it leaves with nobody else starves, between two full stretches.
TEST_F(AttributionTest, StarvationBetweenFullStretchesAndPartialPresence) {
  const uint32_t join = tables.context(main_ctx, 0xB000, capture::kJoin);
  // Thread 1 ran 1% of the interval, then blocked: not yet its work; main only joins.
  snapshot(kSecond,
           {{0, join, capture::kBlocked, kRoleWaiting}, {1, g, capture::kBusy, kRoleNone, 0.01f}});
  snapshot(kSecond,
           {{0, f, capture::kBusy, kRoleNone, 1.0f}, {1, g, capture::kBusy, kRoleNone, 1.0f}});
  // Thread 1 ended half-way: half a processor has no thread; main joins meanwhile.
  snapshot(kSecond, {{0, join, capture::kBlocked, kRoleWaiting},
                     {1, g, capture::kBusy, kRoleNone, 0.5f, 0.5f},
                     {2, f, capture::kBusy, kRoleNone, 1.0f}});
  snapshot(kSecond,
           {{0, f, capture::kBusy, kRoleNone, 1.0f}, {2, g, capture::kBusy, kRoleNone, 1.0f}});
  attribute_window(window, tables, config, totals);
  const Starvation& s = totals.starvation;
  EXPECT_DOUBLE_EQ(s.startup_s, 0.0);  // thread 1 had not worked: no parallel threads yet
  EXPECT_DOUBLE_EQ(s.first_full_s, 1.0);
  EXPECT_NEAR(s.between_s, 0.5, 1e-6);
  EXPECT_DOUBLE_EQ(s.winddown_s, 0.0);
  EXPECT_DOUBLE_EQ(s.last_full_s, 4.0);
  // e = 1.5: the threads share the 0.5 s by their running. Half the second is in bin 1
  // (one processor busy): the 0.5 processors starved are the other processor of that
  // half, all of the contexts' time alone, by their running.
  EXPECT_NEAR(tables.thread_entry(1).starved_later_s, 0.5 * 0.5 / 1.5, 1e-6);
  EXPECT_NEAR(tables.thread_entry(2).starved_later_s, 0.5 * 1.0 / 1.5, 1e-6);
  EXPECT_NEAR(tables.context_apart(f).starved + tables.context_apart(g).starved, 0.5, 1e-6);
}

// On 2 processors, thread 1 runs f the whole second while thread 2, busy in g, waits for a
// processor (its clock and run queue say so: the other processor was taken, or being woken)
// half of it, and runs nothing; main joins. f ran alone, but the other processor did not
// wait for it: half of its second is taken, none starved (two threads at work).
TEST_F(AttributionTest, AloneWhileOtherThreadsWereReadyTheOtherProcessorsWereTaken) {
  const uint32_t join = tables.context(main_ctx, 0xB000, capture::kJoin);
  snapshot(kSecond, {{0, join, capture::kBlocked, kRoleWaiting},
                     {1, f, capture::kBusy, kRoleNone, 1.0f},
                     {2, g, capture::kBusy}});
  measured(2, 0.0, 0.5);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(normalized_bin(procedure(kF), 1), 1.0);
  EXPECT_DOUBLE_EQ(state(thread(2), capture::kReady), 0.5);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).taken, 0.5);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).starved, 0.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(g).taken, 0.0);  // it did not run
  const Starvation& s = totals.starvation;
  EXPECT_DOUBLE_EQ(s.startup_s + s.between_s + s.winddown_s, 0.0);
}

// On 2 processors, thread 1 runs f the whole second while thread 2 spins at the team's
// barrier, waiting for it (the slowest); main joins. f ran alone, and all of that is the
// team's imbalance, not a serial bottleneck.
TEST_F(AttributionTest, AloneWhileTheTeamWaitedAtItsBarrierIsTheTeamsImbalance) {
  const uint32_t join = tables.context(main_ctx, 0xB000, capture::kJoin);
  const uint32_t barrier = tables.context(main_ctx, kLock, capture::kOmpBarrier);
  snapshot(kSecond, {{0, join, capture::kBlocked, kRoleWaiting},
                     {1, f, capture::kBusy, kRoleNone, 1.0f},
                     {2, barrier, capture::kSpinning, kRoleWaiting, 1.0f}});
  measured(1, 1.0);
  measured(2, 1.0);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(normalized_bin(procedure(kF), 1), 1.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).waited, 1.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).taken, 0.0);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).starved, 0.0);
}

// The same, read with an entry turned off: the windows found thread 1 in g below f three
// reads in four. f's time alone goes where its time goes, 3/4 to g below f, 1/4 to f, and
// so does the part of it the other processor was taken: no context has more of it taken
// than it has time alone (minimap2's run had 2.3 ms taken of 1.7 ms, `quartz check`).
TEST_F(AttributionTest, TheTakenPartOfTimeAloneGoesWhereTheTimeGoesWithEntriesOff) {
  const uint32_t g_below_f = tables.context(f, kG, capture::kProcedure);
  const HiddenPart parts[] = {{f, f, 0.25}, {f, g_below_f, 0.75}};
  config.hidden = HiddenParts{parts, 2};
  const uint32_t join = tables.context(main_ctx, 0xB000, capture::kJoin);
  snapshot(kSecond,
           {{0, join, capture::kBlocked, kRoleWaiting},
            {1, f, capture::kBusy, kRoleNone, 1.0f},
            {2, h, capture::kBusy}},
           true);
  measured(2, 0.0, 0.5);
  attribute_window(window, tables, config, totals);
  EXPECT_DOUBLE_EQ(tables.context_apart(g_below_f).taken, 0.75 * 0.5);
  EXPECT_DOUBLE_EQ(tables.context_apart(f).taken, 0.25 * 0.5);
  EXPECT_DOUBLE_EQ(tables.context_apart(h).taken, 0.0);  // it did not run
}

// The CPU-share rule, worked by hand: 1 ms of processor time read at the end of a 2 ms
// interval.
TEST(ProcessorTimeShare, BetweenTwoActiveSamplesHalfGoesToEach) {
  ThreadSample earlier{0, 0, kNone, capture::kBusy, kRoleNone, 0, 0.5f};
  const float share = share_processor_time(1e6, &earlier, 2'000'000, true, 2'000'000);
  EXPECT_FLOAT_EQ(earlier.run, 0.75f);  // 0.5 + 0.5 ms / 2 ms
  EXPECT_FLOAT_EQ(share, 0.25f);        // 0.5 ms / 2 ms
}

TEST(ProcessorTimeShare, AfterAWaitAllGoesToThisSample) {
  EXPECT_FLOAT_EQ(share_processor_time(1e6, nullptr, 0, true, 2'000'000), 0.5f);
}

TEST(ProcessorTimeShare, BeforeAWaitAllStaysInThisInterval) {
  ThreadSample earlier{0, 0, kNone, capture::kBusy, kRoleNone, 0, 0.5f};
  EXPECT_FLOAT_EQ(share_processor_time(1e6, &earlier, 2'000'000, false, 2'000'000), 0.5f);
  EXPECT_FLOAT_EQ(earlier.run, 0.5f);
  // Between two waits (no earlier active sample) too.
  EXPECT_FLOAT_EQ(share_processor_time(1e6, nullptr, 0, false, 2'000'000), 0.5f);
}

TEST(ProcessorTimeShare, AnEarlierSampleWithoutAReadingStaysUnknown) {
  ThreadSample earlier{0, 0, kNone, capture::kBusy, kRoleNone, 0, -1.0f};
  EXPECT_FLOAT_EQ(share_processor_time(1e6, &earlier, 2'000'000, true, 2'000'000), 0.25f);
  EXPECT_FLOAT_EQ(earlier.run, -1.0f);
}

// A thread's presence, worked by hand on snapshots 2 ms apart.
constexpr uint64_t kMillisecond = 1'000'000;

TEST(LifeCount, AThreadBornAndEndedBetweenSnapshotsIsPresentForItsLife) {
  LifeCount life;
  EXPECT_FLOAT_EQ(life.share(3 * kMillisecond, 3500'000, 2 * kMillisecond, 4 * kMillisecond),
                  0.25f);  // 0.5 of 2 ms
}

// A CI run under ASan: a 3.9 ms thread's states summed to 6.3 ms. The sampler, preempted
// in its walk, read the thread after it stored its end at 5 ms but before its slot said
// so: that sample counts to 5 ms, past the snapshot's 4 ms, and the next (the slot ended)
// must not count 4-5 ms again.
TEST(LifeCount, AnEndReadWhileTheWalkWentOnIsCountedOnce) {
  LifeCount life;
  const uint64_t born = 1 * kMillisecond, ended = 5 * kMillisecond;
  const double first = life.share(born, 0, 0, 2 * kMillisecond);                      // 1-2 ms
  const double second = life.share(born, ended, 2 * kMillisecond, 4 * kMillisecond);  // 2-5 ms
  const double last = life.share(born, ended, 4 * kMillisecond, 6 * kMillisecond);  // nothing left
  EXPECT_DOUBLE_EQ(first, 0.5);
  EXPECT_DOUBLE_EQ(second, 1.5);
  EXPECT_DOUBLE_EQ(last, 0.0);
  EXPECT_DOUBLE_EQ((first + second + last) * 2 * kMillisecond, static_cast<double>(ended - born));
}

// A first sample carries the time since the thread's creation that no snapshot saw, even
// when that began before the interval (the thread was created while the last walk went on).
TEST(LifeCount, TheFirstSampleCarriesTheTimeSinceCreation) {
  LifeCount life;
  EXPECT_DOUBLE_EQ(life.share(1 * kMillisecond, 0, 2 * kMillisecond, 4 * kMillisecond), 1.5);
  EXPECT_DOUBLE_EQ(life.share(1 * kMillisecond, 0, 4 * kMillisecond, 6 * kMillisecond), 1.0);
}

}  // namespace
}  // namespace quartz::sampler
