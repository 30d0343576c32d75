// The what-if replay against answers worked out by hand (DESIGN.md §3 "LBF and CP"):
// hand-built traces of a lock handed back and forth, a barrier, a create/join tree, a
// condition hand-off, a client/server exchange and wake-ups in a pool of processors,
// replayed in several configurations.
#include "analysis/replay.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "tests/testing/trace_builder.h"

namespace quartz::analysis {
namespace {

using test_support::BuiltRecord;
using test_support::Timeline;
using test_support::TraceBytes;
using trace::Type;

constexpr uint64_t kLock = 0x1000, kBarrier = 0x2000, kMutex = 0x3000, kCond = 0x4000;
constexpr uint64_t kRequests = 0x5000, kReply1 = 0x6000, kReply2 = 0x7000;

SimulationConfig shared(uint32_t threads, double cores) {
  return threads_sharing(threads, cores);
}
SimulationConfig apart(uint32_t threads) {
  return threads_apart(threads);
}
SimulationConfig groups(const std::vector<uint32_t>& group_of) {
  return threads_grouped(group_of);
}

// Predicted elapsed milliseconds of each configuration, the trace read in chunks of
// `per_chunk` records.
std::vector<double> replay_ms(const std::vector<BuiltRecord>& records, uint32_t threads,
                              std::vector<SimulationConfig> configs, size_t per_chunk = 1 << 20) {
  TraceBytes bytes;
  bytes.chunks(records, per_chunk);
  bytes.end();
  const ReplayPass pass = replay_trace(profile::trace_from_bytes(bytes.bytes(), "test.trace"),
                                       threads, AssemblerCosts{}, std::move(configs));
  std::vector<double> ms;
  for (const auto& r : pass.results) {
    EXPECT_EQ(r.forced_waits, 0u);
    ms.push_back(r.elapsed_ns / 1e6);
  }
  return ms;
}

// Main (thread 0) creates `children` at `at_ms`, then joins them in order as they ended.
void main_thread(std::vector<BuiltRecord>& out,
                 const std::vector<std::pair<uint32_t, double>>& children_end, double end_ms) {
  Timeline main(0, out);
  main.event(Type::thread_start, 0, trace::kNoThread);
  for (const auto& [child, ended] : children_end) main.event(Type::create, 0, child);
  for (const auto& [child, ended] : children_end) {
    main.event(Type::join_begin, capture::kJoin, child)
        .until(ended)
        .event(Type::join_end, capture::kJoin, child);
  }
  main.until(end_ms).event(Type::process_end).exit();
}

// Two threads take one lock twice each, 10 ms of work before each hold of 10 ms.
std::vector<BuiltRecord> lock_ping_pong() {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 40}, {2, 50}}, 50);
  Timeline a(1, r);
  a.event(Type::thread_start, 0, 0).work(10).event(Type::lock_acquire, capture::kMutex, kLock, 1);
  a.work(10).event(Type::lock_release, capture::kMutex, kLock, 1).work(10);
  a.event(Type::lock_acquire, capture::kMutex, kLock, 3).work(10);
  a.event(Type::lock_release, capture::kMutex, kLock, 3).exit();
  Timeline b(2, r);
  b.event(Type::thread_start, 0, 0).work(10).event(Type::lock_request, capture::kMutex, kLock);
  b.until(20).event(Type::lock_acquire, capture::kMutex, kLock, 2).work(10);
  b.event(Type::lock_release, capture::kMutex, kLock, 2).work(10);
  b.event(Type::lock_acquire, capture::kMutex, kLock, 4).work(10);
  b.event(Type::lock_release, capture::kMutex, kLock, 4).exit();
  return r;
}

TEST(Replay, LockHandedBackAndForth) {
  const auto ms =
      replay_ms(lock_ping_pong(), 3, {shared(3, 2), apart(3), groups({0, 1, 1}), shared(3, 1)});
  EXPECT_NEAR(ms[0], 50, 1e-6);  // as recorded
  EXPECT_NEAR(ms[1], 50, 1e-6);  // the critical path
  // One processor for both: they share it while both work, the lock keeps its order:
  // 0-20 both work; 20-30 a holds; 30-50 a works, b holds; 50-70 a holds, b works; 70-80 b.
  EXPECT_NEAR(ms[2], 80, 1e-6);
  EXPECT_NEAR(ms[3], 80, 1e-6);
}

// Each processor less the sampler's share (the check's replay): work takes 1 / capacity as
// long, under both ways of sharing a processor; waits for other threads' work stretch with it.
TEST(Replay, AProcessorTheSamplerSharesRunsTheProgramAtTheRestOfItsSpeed) {
  auto beside_the_sampler = [](SimulationConfig c, const char* model) {
    c.model = scheduler_models_named(model).front();
    c.capacity = 0.8;
    return c;
  };
  const auto ms = replay_ms(
      lock_ping_pong(), 3,
      {beside_the_sampler(shared(3, 2), "fair"), beside_the_sampler(shared(3, 2), "slices"),
       beside_the_sampler(shared(3, 1), "fair")});
  EXPECT_NEAR(ms[0], 50 / 0.8, 1e-6);
  EXPECT_NEAR(ms[1], 50 / 0.8, 1e-6);
  EXPECT_NEAR(ms[2], 80 / 0.8, 1e-6);
}

TEST(Replay, TheSameInAnyChunking) {
  for (size_t per_chunk : {1, 2, 3, 7, 1000}) {
    const auto ms = replay_ms(lock_ping_pong(), 3, {groups({0, 1, 1}), apart(3)}, per_chunk);
    EXPECT_NEAR(ms[0], 80, 1e-6) << per_chunk;
    EXPECT_NEAR(ms[1], 50, 1e-6) << per_chunk;
  }
}

// Configurations replayed side by side on several threads give what one thread gives,
// the critical path's make-up included (and the TSan tree checks they share nothing).
TEST(Replay, TheSameOnAnyNumberOfThreads) {
  TraceBytes bytes;
  bytes.chunks(lock_ping_pong(), 3);
  bytes.end();
  auto configs = [] {
    SimulationConfig path = apart(3);
    path.critical_path = true;
    return std::vector<SimulationConfig>{shared(3, 2), path, groups({0, 1, 1}), shared(3, 1),
                                         groups({0, 0, 1})};
  };
  auto replay = [&](unsigned workers) {
    return replay_trace(profile::trace_from_bytes(bytes.bytes(), "test.trace"), 3, AssemblerCosts{},
                        configs(), workers);
  };
  const ReplayPass one = replay(1);
  for (unsigned workers : {2u, 4u, 8u}) {
    const ReplayPass many = replay(workers);
    ASSERT_EQ(many.results.size(), one.results.size());
    for (size_t i = 0; i < one.results.size(); ++i) {
      EXPECT_EQ(many.results[i].elapsed_ns, one.results[i].elapsed_ns) << workers << " " << i;
      EXPECT_EQ(many.results[i].steps, one.results[i].steps) << workers << " " << i;
    }
    ASSERT_TRUE(many.results[1].path && one.results[1].path);
    EXPECT_EQ(many.results[1].path->thread_ns, one.results[1].path->thread_ns);
    EXPECT_EQ(many.results[1].path->lock_ns, one.results[1].path->lock_ns);
  }
  EXPECT_NEAR(one.results[0].elapsed_ns / 1e6, 50, 1e-6);
  EXPECT_NEAR(one.results[2].elapsed_ns / 1e6, 80, 1e-6);
}

// The wake-up latency measured while the trace is read (prediction.cpp's pass of its own)
// replays as the same latency given at once: the replays begin from the first step when
// it comes. With none, the same ping-pong replays faster: the latency is what it tests.
TEST(Replay, AWakeUpLatencyMeasuredMeanwhileReplaysAsOneGivenAtOnce) {
  TraceBytes bytes;
  bytes.chunks(lock_ping_pong(), 3);
  bytes.end();
  constexpr double kLatencyNs = 30000;
  auto configs = [](double latency_ns) {
    std::vector<SimulationConfig> out{shared(3, 2), groups({0, 1, 1}), apart(3)};
    for (SimulationConfig& c : out) c.wake_latency_ns = latency_ns;
    return out;
  };
  auto replay = [&](std::vector<SimulationConfig> c, std::shared_future<WakeLatency> wake) {
    return replay_trace(profile::trace_from_bytes(bytes.bytes(), "test.trace"), 3, AssemblerCosts{},
                        std::move(c), 2, std::move(wake));
  };
  const ReplayPass given = replay(configs(kLatencyNs), {});
  const ReplayPass none = replay(configs(0), {});
  std::promise<WakeLatency> measured;
  std::thread measuring([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    measured.set_value(WakeLatency{kLatencyNs, 100, 50});
  });
  const ReplayPass meanwhile = replay(configs(0), measured.get_future().share());
  measuring.join();
  ASSERT_EQ(meanwhile.results.size(), given.results.size());
  bool latency_counts = false;
  for (size_t i = 0; i < given.results.size(); ++i) {
    EXPECT_EQ(meanwhile.results[i].elapsed_ns, given.results[i].elapsed_ns) << i;
    EXPECT_EQ(meanwhile.results[i].steps, given.results[i].steps) << i;
    latency_counts |= none.results[i].elapsed_ns != given.results[i].elapsed_ns;
  }
  EXPECT_TRUE(latency_counts);
}

TEST(Replay, Barrier) {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 35}, {2, 35}, {3, 35}}, 35);
  const double work[] = {10, 20, 30};
  for (uint32_t t = 1; t <= 3; ++t) {
    Timeline w(t, r);
    w.event(Type::thread_start, 0, 0).work(work[t - 1]);
    w.event(Type::barrier_arrive, capture::kBarrier, kBarrier, t - 1, 3).until(30);
    w.event(Type::barrier_depart, capture::kBarrier, kBarrier, 0, 3).work(5).exit();
  }
  const auto ms = replay_ms(r, 4, {apart(4), shared(4, 1), groups({0, 1, 2, 1})});
  EXPECT_NEAR(ms[0], 35, 1e-6);
  EXPECT_NEAR(ms[1], 75, 1e-6);  // all the work, one processor
  // 1 and 3 share a processor: 1 done at 20, 3 at 40; the barrier opens at 40; then 1 and
  // 3 share again for their 5 ms each: 50.
  EXPECT_NEAR(ms[2], 50, 1e-6);
}

TEST(Replay, CreateJoinTree) {
  std::vector<BuiltRecord> r;
  Timeline main(0, r);
  main.event(Type::thread_start, 0, trace::kNoThread).work(5).event(Type::create, 0, 1).work(5);
  main.event(Type::create, 0, 2).work(5).event(Type::join_begin, capture::kJoin, 1).until(25);
  main.event(Type::join_end, capture::kJoin, 1).event(Type::join_end, capture::kJoin, 2).work(5);
  main.event(Type::process_end).exit();
  Timeline a(1, r, 5);
  a.event(Type::thread_start, 0, 0).work(20).exit();
  Timeline b(2, r, 10);
  b.event(Type::thread_start, 0, 0).work(10).exit();
  const auto ms = replay_ms(r, 3, {apart(3), shared(3, 1), groups({0, 1, 1}), shared(3, 2)});
  EXPECT_NEAR(ms[0], 30, 1e-6);  // main 5, a 20, main 5
  EXPECT_NEAR(ms[1], 50, 1e-6);  // main 20 + a 20 + b 10 on one processor
  // a alone 5-10, then a and b share: b done at 30, a at 35; main joins, works 5.
  EXPECT_NEAR(ms[2], 40, 1e-6);
  // Two processors, each thread on one: a starts on the idle second at 5; at 10 none is
  // idle and b stays with main on the first (its last, as loaded as the other): main's
  // 5 ms end at 20 at half speed, b's 10 ms at 25 (half, then whole), a's 20 ms at 25;
  // main's last 5: 30.
  EXPECT_NEAR(ms[3], 30, 1e-6);
}

// A pool of processors places threads as Linux does: thread 1 computes 30 ms and at 10
// and 20 wakes threads 2 and 3 (a semaphore each), which compute 4 ms each time. Woken
// together, both go to the processor that was idle and share it; thread 1 keeps its own.
TEST(Replay, APoolKeepsARunningThreadOnItsProcessor) {
  constexpr uint64_t kToTwo = 0x8000, kToThree = 0x9000;
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 30}, {2, 24}, {3, 24}}, 30);
  Timeline one(1, r);
  one.event(Type::thread_start, 0, 0).work(10);
  one.event(Type::sem_post, capture::kSemaphore, kToTwo, 1)
      .event(Type::sem_post, capture::kSemaphore, kToThree, 1);
  one.work(10);
  one.event(Type::sem_post, capture::kSemaphore, kToTwo, 2)
      .event(Type::sem_post, capture::kSemaphore, kToThree, 2);
  one.work(10).exit();
  for (uint32_t t : {2u, 3u}) {
    const uint64_t sem = t == 2 ? kToTwo : kToThree;
    Timeline w(t, r);
    w.event(Type::thread_start, 0, 0)
        .event(Type::sem_wait_begin, capture::kSemaphore, sem)
        .until(10);
    w.event(Type::sem_acquire, capture::kSemaphore, sem, 1, 0).work(4);
    w.event(Type::sem_wait_begin, capture::kSemaphore, sem).until(20);
    w.event(Type::sem_acquire, capture::kSemaphore, sem, 2, 0).work(4).exit();
  }
  const auto ms = replay_ms(r, 4, {shared(4, 2), apart(4), groups({0, 1, 2, 2}), shared(4, 1)});
  // 2 and 3 share the second processor 10-18 and 20-28; 1 runs alone: 30. (Fair sharing
  // of both processors by all three would give 34: 1 slowed to 2/3 while 2 and 3 run.)
  EXPECT_NEAR(ms[0], 30, 1e-6);
  EXPECT_NEAR(ms[1], 30, 1e-6);
  EXPECT_NEAR(ms[2], 30, 1e-6);
  // One processor: 0-10 1 alone; 10-22 all three (2 and 3 done); 22-28 1; 28-40 all three;
  // 40-46 1.
  EXPECT_NEAR(ms[3], 46, 1e-6);
}

// The consumer waits on a condition for what the producer makes in context 1.
std::vector<BuiltRecord> condition_hand_off() {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 10}, {2, 20}}, 20);
  Timeline producer(1, r);
  producer.event(Type::thread_start, 0, 0).sample(1).work(10).sample(1);
  producer.event(Type::lock_acquire, capture::kMutex, kMutex, 2)
      .event(Type::lock_release, capture::kMutex, kMutex, 2);
  producer.event(Type::cond_signal, capture::kCondition, kCond, 1).exit();
  Timeline consumer(2, r);
  consumer.event(Type::thread_start, 0, 0).event(Type::lock_acquire, capture::kMutex, kMutex, 1);
  consumer.event(Type::lock_release, capture::kMutex, kMutex, 1)
      .event(Type::cond_wait, capture::kCondition, kCond, 0);
  consumer.until(10).event(Type::cond_wake, capture::kCondition, kCond, 1);
  consumer.event(Type::lock_acquire, capture::kMutex, kMutex, 3)
      .event(Type::lock_release, capture::kMutex, kMutex, 3);
  consumer.work(10).exit();
  return r;
}

TEST(Replay, ConditionHandOff) {
  SimulationConfig zero = apart(3);
  zero.in_procedure = {0, 1};  // context 1 is in the procedure
  zero.speedup = 1;
  SimulationConfig half = apart(3);
  half.in_procedure = {0, 1};
  half.speedup = 0.5;
  const auto ms = replay_ms(condition_hand_off(), 3, {apart(3), shared(3, 1), zero, half});
  EXPECT_NEAR(ms[0], 20, 1e-6);
  EXPECT_NEAR(ms[1], 20, 1e-6);  // the consumer waits while the producer works
  EXPECT_NEAR(ms[2], 10, 1e-6);  // producing takes no time: the consumer starts at once
  EXPECT_NEAR(ms[3], 15, 1e-6);
}

// A waiter that falls far behind the thread signalling still goes on: its signal was
// produced, long before (the replay keeps the last 64 as keys; CI's faster machine once
// replayed a queue's consumer 25 times past them, each wait forced).
TEST(Replay, AWakerFarBehindItsSignalStillFindsIt) {
  constexpr uint64_t kSignals = 200;
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 20}, {2, 11}, {3, 30}}, 30);
  Timeline signaller(1, r);
  signaller.event(Type::thread_start, 0, 0);
  for (uint32_t s = 1; s <= kSignals; ++s) {
    signaller.work(0.1).event(Type::cond_signal, capture::kCondition, kCond, s);
  }
  signaller.exit();
  Timeline waiter(2, r);  // woken by signal 100, at 10 ms
  waiter.event(Type::thread_start, 0, 0).work(9.95);
  waiter.event(Type::cond_wait, capture::kCondition, kCond, 99);
  waiter.until(10).event(Type::cond_wake, capture::kCondition, kCond, 100).work(1).exit();
  Timeline hog(3, r);
  hog.event(Type::thread_start, 0, 0).work(30).exit();
  // The waiter shares a processor with the hog: it waits at 19.9 ms, when signal 199 is
  // out, and ends at 21.9; the hog has had 10.95 ms of its 30 by then and ends at 40.95.
  const auto ms = replay_ms(r, 4, {apart(4), groups({0, 0, 1, 1})});
  EXPECT_NEAR(ms[0], 30, 1e-6);
  EXPECT_NEAR(ms[1], 40.95, 1e-6);
}

// Waking a thread onto an idle processor takes the machine's wake-up latency (here 1 ms);
// onto one still running (its thread blocks or ends after the wake-up) it does not.
TEST(Replay, WakingAnIdleProcessorTakesTheWakeUpLatency) {
  SimulationConfig own = apart(3), one = shared(3, 1);
  own.wake_latency_ns = one.wake_latency_ns = 1e6;
  SimulationConfig instant = own;
  instant.model = scheduler_models_named("instant_wake").front();
  const auto ms = replay_ms(condition_hand_off(), 3, {own, one, instant});
  // Each on its own processor: the consumer's idled since it began to wait, so it runs
  // from 11 and ends at 21; main, joining it, wakes at 22.
  EXPECT_NEAR(ms[0], 22, 1e-6);
  EXPECT_NEAR(ms[2], 20, 1e-6);  // the model of instantaneous wake-ups ignores the latency
  // One processor, running until each wake-up: the producer signals, then ends; the
  // consumer ends, then main joins it.
  EXPECT_NEAR(ms[1], 20, 1e-6);
}

// Two waiters woken at once in a pool of two processors, one of them idle: the first wakes
// the idle one up; the second goes to the running one at once, as Linux puts it where a
// processor is awake.
std::vector<BuiltRecord> two_woken() {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 10}, {2, 20}, {3, 20}}, 20);
  Timeline signaller(1, r);
  signaller.event(Type::thread_start, 0, 0).work(10);
  signaller.event(Type::cond_broadcast, capture::kCondition, kCond, 1).exit();
  for (uint32_t w = 2; w <= 3; ++w) {
    Timeline waiter(w, r);
    waiter.event(Type::thread_start, 0, 0).event(Type::cond_wait, capture::kCondition, kCond, 0);
    waiter.until(10).event(Type::cond_wake, capture::kCondition, kCond, 1).work(10).exit();
  }
  return r;
}

TEST(Replay, OneIdleProcessorIsWokenForOneThread) {
  SimulationConfig pool = shared(4, 2);
  pool.wake_latency_ns = 1e6;
  const auto ms = replay_ms(two_woken(), 4, {pool, shared(4, 2)});
  // Waiter 3 takes the processor the signaller leaves at 10 and ends at 20; waiter 2 wakes
  // the idle one up and runs from 11 to 21; main, joining it, wakes the processor idle
  // since 20 at 22. (Without the latency, both waiters end at 20.)
  EXPECT_NEAR(ms[0], 22, 1e-6);
  EXPECT_NEAR(ms[1], 20, 1e-6);
}

// Two clients (1, 2) send requests through one semaphore; the server (3) serves each in
// 20 ms of its procedure (context 7) and posts the client's reply semaphore.
std::vector<BuiltRecord> client_server() {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 30}, {2, 50}, {3, 50}}, 50);
  const uint64_t replies[] = {kReply1, kReply2};
  for (uint32_t c = 1; c <= 2; ++c) {
    Timeline client(c, r);
    client.event(Type::thread_start, 0, 0)
        .work(10)
        .event(Type::sem_post, capture::kSemaphore, kRequests, c);
    client.event(Type::sem_wait_begin, capture::kSemaphore, replies[c - 1]).until(c == 1 ? 30 : 50);
    client.event(Type::sem_acquire, capture::kSemaphore, replies[c - 1], 1, 0).exit();
  }
  Timeline server(3, r);
  server.event(Type::thread_start, 0, 0)
      .event(Type::sem_wait_begin, capture::kSemaphore, kRequests)
      .until(10);
  for (uint32_t n = 1; n <= 2; ++n) {
    server.event(Type::sem_acquire, capture::kSemaphore, kRequests, n, 0)
        .sample(7)
        .work(20)
        .sample(7);
    server.event(Type::sem_post, capture::kSemaphore, replies[n - 1], 1);
  }
  server.exit();
  return r;
}

TEST(Replay, ClientServerExchange) {
  auto change = [](double speedup, bool migrate) {
    SimulationConfig c = apart(4);
    c.in_procedure.assign(8, 0);
    c.in_procedure[7] = 1;
    c.speedup = speedup;
    c.migrate = migrate;
    return c;
  };
  const auto ms =
      replay_ms(client_server(), 4,
                {apart(4), change(1, false), change(0.5, false), change(0, true), shared(4, 1)});
  EXPECT_NEAR(ms[0], 50, 1e-6);  // the server serves one client after the other
  EXPECT_NEAR(ms[1], 10, 1e-6);  // serving takes no time
  EXPECT_NEAR(ms[2], 30, 1e-6);  // 10 ms each
  // Procedure LBF: each client does its own 20 ms after the server answers at once.
  EXPECT_NEAR(ms[3], 30, 1e-6);
  EXPECT_NEAR(ms[4], 60, 1e-6);  // 2 x 10 thinking + 2 x 20 serving on one processor
}

TEST(Replay, CriticalPathComposition) {
  SimulationConfig path = apart(4);
  path.critical_path = true;
  TraceBytes bytes;
  bytes.chunks(client_server(), 5);
  bytes.end();
  const ReplayPass pass =
      replay_trace(profile::trace_from_bytes(bytes.bytes(), "t"), 4, AssemblerCosts{}, {path});
  ASSERT_TRUE(pass.results[0].path);
  const PathComposition& p = *pass.results[0].path;
  // client 1 thinks 10, the server serves 20 + 20 (context 7), then client 2 is answered.
  EXPECT_NEAR(p.cpu_ns / 1e6, 50, 1e-6);
  ASSERT_GE(p.thread_ns.size(), 4u);
  EXPECT_NEAR(p.thread_ns[3] / 1e6, 40, 1e-6);
  EXPECT_NEAR((p.thread_ns[1] + p.thread_ns[2]) / 1e6, 10, 1e-6);
  EXPECT_NEAR(p.context_ns.at(7) / 1e6, 40, 1e-6);
}

// ---- Scheduler models (scheduler_model.h) ------------------------------------------------

SimulationConfig under(SimulationConfig c, std::string_view model) {
  c.model = scheduler_models_named(std::string(model)).front();
  return c;
}

// Threads 1 and 2 share a processor, 10 ms of work each; when 1 is done it posts to 3, on a
// processor of its own, which then works 10 ms.
std::vector<BuiltRecord> two_sharing_then_a_post() {
  constexpr uint64_t kDone = 0x8000;
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 10}, {2, 10}, {3, 20}}, 20);
  Timeline one(1, r);
  one.event(Type::thread_start, 0, 0).work(10);
  one.event(Type::sem_post, capture::kSemaphore, kDone, 1).exit();
  Timeline two(2, r);
  two.event(Type::thread_start, 0, 0).work(10).exit();
  Timeline three(3, r);
  three.event(Type::thread_start, 0, 0).event(Type::sem_wait_begin, capture::kSemaphore, kDone);
  three.until(10).event(Type::sem_acquire, capture::kSemaphore, kDone, 1, 0).work(10).exit();
  return r;
}

TEST(Replay, HowTheModelsShareAProcessor) {
  const SimulationConfig c = groups({0, 1, 1, 2});
  const auto ms = replay_ms(
      two_sharing_then_a_post(), 4,
      {under(c, "fair"), under(c, "slices"), under(c, "turns"), under(c, "run_to_block")});
  EXPECT_NEAR(ms[0], 30, 1e-6);  // both at half speed: 1 done at 20, then 3's 10
  // Turns of 2 ms, 1 first (created first): 1 runs 0-2, 4-6, ..., 16-18.
  EXPECT_NEAR(ms[1], 28, 1e-6);
  EXPECT_NEAR(ms[2], 28, 1e-6);
  EXPECT_NEAR(ms[3], 20, 1e-6);  // 1 runs until done, 0-10, while 2 waits
}

// Thread 1 computes 20 ms; thread 2, on its processor, waits for thread 3 (on its own),
// which works 4 ms and posts; woken, 2 works 1 ms and posts to 3, which then works 20 ms.
TEST(Replay, AWokenThreadPreemptsOrWaitsItsTurn) {
  constexpr uint64_t kGo = 0x8000, kBack = 0x9000;
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 20}, {2, 5}, {3, 25}}, 25);
  Timeline one(1, r);
  one.event(Type::thread_start, 0, 0).work(20).exit();
  Timeline two(2, r);
  two.event(Type::thread_start, 0, 0).event(Type::sem_wait_begin, capture::kSemaphore, kGo);
  two.until(4).event(Type::sem_acquire, capture::kSemaphore, kGo, 1, 0).work(1);
  two.event(Type::sem_post, capture::kSemaphore, kBack, 1).exit();
  Timeline three(3, r);
  three.event(Type::thread_start, 0, 0).work(4).event(Type::sem_post, capture::kSemaphore, kGo, 1);
  three.event(Type::sem_wait_begin, capture::kSemaphore, kBack).until(5);
  three.event(Type::sem_acquire, capture::kSemaphore, kBack, 1, 0).work(20).exit();
  const SimulationConfig c = groups({0, 1, 1, 2});
  const auto ms = replay_ms(
      r, 4, {under(c, "fair"), under(c, "slices"), under(c, "turns"), under(c, "run_to_block")});
  EXPECT_NEAR(ms[0], 26, 1e-6);  // 2's 1 ms at half speed: 4-6
  EXPECT_NEAR(ms[1], 25, 1e-6);  // 2 preempts 1 at 4: done at 5
  // 1 ran alone since 0; its turn under way when 2 arrives ends at 6: 2 runs 6-7.
  EXPECT_NEAR(ms[2], 27, 1e-6);
  EXPECT_NEAR(ms[3], 41, 1e-6);  // 2 waits until 1 is done at 20
}

// A pool of two processors: threads 1, 2, 3 (10, 20 and 5 ms of work) all start on the
// first, where main just blocked; the idle second takes 3 (put there last, highest index).
TEST(Replay, AnIdleProcessorPullsAtOnceOrAtThePeriodicBalancing) {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 10}, {2, 20}, {3, 5}}, 20);
  const double work[] = {10, 20, 5};
  for (uint32_t t = 1; t <= 3; ++t) {
    Timeline w(t, r);
    w.event(Type::thread_start, 0, 0).work(work[t - 1]).exit();
  }
  const SimulationConfig c = shared(4, 2);
  const auto ms =
      replay_ms(r, 4, {under(c, "fair"), under(c, "no_pull"), under(c, "wake_to_last")});
  // 3 done at 5; the second processor, newly idle, takes 2 (2.5 done) at once: 2 ends at
  // 22.5, 1 (alone from 5) at 12.5.
  EXPECT_NEAR(ms[0], 22.5, 1e-6);
  // Each pull waits 4 ms after the processor went idle: 0-4 all three share the first
  // (4/3 each); 3 moves, ends at 7.67; 1 and 2 share until 11.67 (5.17 each); 2 moves: 26.5.
  EXPECT_NEAR(ms[1], 26.5, 1e-6);
  EXPECT_NEAR(ms[2], 22.5, 1e-6);  // nobody woke onto a busy processor
}

// Thread 1 holds the lock 10 ms twice in a row; thread 2, on its own processor, asks at 5
// and was granted it between (recorded order: 1, 2, 3), then works 10 ms.
std::vector<BuiltRecord> lock_taken_back() {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 30}, {2, 30}}, 30);
  Timeline a(1, r);
  a.event(Type::thread_start, 0, 0).event(Type::lock_acquire, capture::kMutex, kLock, 1).work(10);
  a.event(Type::lock_release, capture::kMutex, kLock, 1)
      .event(Type::lock_request, capture::kMutex, kLock);
  a.until(20).event(Type::lock_acquire, capture::kMutex, kLock, 3).work(10);
  a.event(Type::lock_release, capture::kMutex, kLock, 3).exit();
  Timeline b(2, r);
  b.event(Type::thread_start, 0, 0).off(5).event(Type::lock_request, capture::kMutex, kLock);
  b.until(10).event(Type::lock_acquire, capture::kMutex, kLock, 2).work(10);
  b.event(Type::lock_release, capture::kMutex, kLock, 2).work(10).exit();
  return r;
}

TEST(Replay, AFreeMutexGoesToWhoeverAsksFirst) {
  const SimulationConfig c = apart(3);
  const auto ms = replay_ms(lock_taken_back(), 3, {under(c, "fair"), under(c, "barging")});
  // Recorded order: 1 holds 0-10; 2 holds 10-20 and works 20-30; 1 holds again 20-30.
  EXPECT_NEAR(ms[0], 30, 1e-6);
  // Who asks first: 1 asks again as it releases at 10 and takes it back, while 2, woken,
  // must run 1 us before it tries (and waits again); 1 releases at 20, 2 takes it at
  // 20.001, holds until 30.001 and works until 40.001.
  EXPECT_NEAR(ms[1], 40.001, 1e-6);
}

// A consumer that found its item queued (issue 38 item 2). The producer (1) works 10 ms,
// queues the item in a critical section of 1 ms and signals 2 ms after it (lock_feeds
// before its release says it will); the consumer (2) works 12 ms in procedure context 1,
// then takes the item in its own critical section, which followed that one (lock_fed), and
// works 5 ms in context 2.
std::vector<BuiltRecord> item_found_queued(bool fed, bool feeds) {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 13}, {2, 18}}, 18);
  Timeline producer(1, r);
  producer.event(Type::thread_start, 0, 0).work(10);
  producer.event(Type::lock_acquire, capture::kMutex, kMutex, 1).work(1);
  if (feeds) producer.event(Type::lock_feeds, capture::kCondition, kCond, 1);
  producer.event(Type::lock_release, capture::kMutex, kMutex, 1).work(2);
  producer.event(Type::cond_signal, capture::kCondition, kCond, 1, 1).exit();
  Timeline consumer(2, r);
  consumer.event(Type::thread_start, 0, 0).sample(1).work(12).sample(1);
  if (fed) consumer.event(Type::lock_fed, capture::kCondition, kCond, 1);
  consumer.event(Type::lock_acquire, capture::kMutex, kMutex, 2).sample(2).work(1).sample(2);
  consumer.event(Type::lock_release, capture::kMutex, kMutex, 2).work(5).sample(2).exit();
  return r;
}

TEST(Replay, AConsumerThatFoundItsItemQueuedStaysBehindItsProducer) {
  SimulationConfig zero = apart(3);
  zero.in_procedure = {0, 1, 0};  // context 1: the consumer's 12 ms before its item
  zero.speedup = 1;
  const SimulationConfig recorded = apart(3);
  const auto ms =
      replay_ms(item_found_queued(true, true), 3,
                {under(recorded, "barging"), under(zero, "fair"), under(zero, "barging")});
  EXPECT_NEAR(ms[0], 18, 1e-6);
  // Without its 12 ms the consumer asks at once, and its critical section still follows the
  // producer's (released at 11): it ends at 17, in the recorded order and to whoever asks
  // first alike.
  EXPECT_NEAR(ms[1], 17, 1e-6);
  EXPECT_NEAR(ms[2], 17, 1e-6);
  // Fed by the signal alone (at 13), it would wait for that.
  EXPECT_NEAR(replay_ms(item_found_queued(true, false), 3, {under(zero, "barging")})[0], 19, 1e-6);
  // Unrecorded (a trace from before lock_fed), the free mutex went to the consumer at 0,
  // before its item was there: done at 6, the producer at 13.
  EXPECT_NEAR(replay_ms(item_found_queued(false, false), 3, {under(zero, "barging")})[0], 13, 1e-6);
}

// Three threads take one lock in turn (recorded order 1, 2, 3): 1 holds it 0-20 ms, 2 asks
// at 1 and 3 at 5, so the lock has two releases waited for at once (the replay keeps a
// lock's first key at its number, the next in a table).
std::vector<BuiltRecord> lock_queue_of_three() {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 20}, {2, 30}, {3, 40}}, 40);
  Timeline a(1, r);
  a.event(Type::thread_start, 0, 0).event(Type::lock_acquire, capture::kMutex, kLock, 1);
  a.work(20).event(Type::lock_release, capture::kMutex, kLock, 1).exit();
  // Thread `index` asks at `ask_ms`, takes the lock at `take_ms` (acquisition `index`),
  // holds it 10 ms and ends.
  auto queued = [&](uint32_t index, double ask_ms, double take_ms) {
    Timeline t(index, r);
    t.event(Type::thread_start, 0, 0).off(ask_ms).event(Type::lock_request, capture::kMutex, kLock);
    t.until(take_ms).event(Type::lock_acquire, capture::kMutex, kLock, index).work(10);
    t.event(Type::lock_release, capture::kMutex, kLock, index).exit();
  };
  queued(2, 1, 20);
  queued(3, 5, 30);
  return r;
}

TEST(Replay, WaitersForSeveralReleasesOfALockAreWokenInTheRecordedOrder) {
  const SimulationConfig c = apart(4);
  const auto ms = replay_ms(lock_queue_of_three(), 4, {under(c, "fair"), under(c, "barging")});
  // Recorded order: 1 holds 0-20, 2 20-30, 3 30-40 (3 waits for the release 2 makes, 2
  // for 1's: both waited for before either is made).
  EXPECT_NEAR(ms[0], 40, 1e-6);
  // Who asks first: 2 (at 1) then 3 (at 5), the same turns, each woken thread running
  // 1 us before it takes the lock.
  EXPECT_NEAR(ms[1], 40.002, 1e-6);
}

TEST(Replay, ATimedOutWaitIsReplayedAsItsRecordedDelay) {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 25}}, 25);
  Timeline t(1, r);
  // A condition wait that nobody signalled (its wake reads the count it started with).
  t.event(Type::thread_start, 0, 0).work(5).event(Type::cond_wait, capture::kCondition, kCond, 4);
  t.off(15).event(Type::cond_wake, capture::kCondition, kCond, 4).work(5).exit();
  const auto ms = replay_ms(r, 2, {apart(2), shared(2, 1)});
  EXPECT_NEAR(ms[0], 25, 1e-6);
  EXPECT_NEAR(ms[1], 25, 1e-6);
}

TEST(Replay, KernelBlockedTimeIsKeptAndReadyTimeDropped) {
  std::vector<BuiltRecord> r;
  main_thread(r, {{1, 60}}, 60);
  Timeline t(1, r);
  // 10 ms of work spread over 30 ms (20 ms preempted: run queue), then 30 ms asleep.
  t.event(Type::thread_start, 0, 0).sample(-1, 0).work(10).off(20).sample(-1, 20);
  t.off(30).sample(-1, 20).exit();
  const auto ms = replay_ms(r, 2, {apart(2)});
  EXPECT_NEAR(ms[0], 40, 1e-6);  // 10 of work, 30 asleep; the 20 ready are the recording's
}

// Main waits in pthread_join for the whole run while a worker takes a lock 10 times in
// each of 100 periods of 10 ms; the trace comes a period a chunk, each with the sampler's
// readings of both threads (main's say only that it still waits). Main's readings are
// placed as the next period's come, not when its wait ends, the trace's last event: the
// replay holds a few periods' steps at once (40 each), not the whole trace's 4,000.
TEST(Replay, AThreadWaitingForTheWholeRunHoldsNoStepsBack) {
  constexpr int kPeriods = 100, kPairs = 10;
  std::vector<BuiltRecord> r;
  std::vector<size_t> chunk_ends;
  Timeline main(0, r), worker(1, r);
  main.event(Type::thread_start, 0, trace::kNoThread).event(Type::create, 0, 1);
  main.event(Type::join_begin, capture::kJoin, 1);
  worker.event(Type::thread_start, 0, 0);
  uint32_t sequence = 0;
  for (int period = 0; period < kPeriods; ++period) {
    for (int i = 0; i < kPairs; ++i) {
      worker.work(0.5).event(Type::lock_acquire, capture::kMutex, kLock, ++sequence);
      worker.work(0.5).event(Type::lock_release, capture::kMutex, kLock, sequence);
    }
    worker.sample(-1, 0);
    main.until(worker.now()).sample(-1, 0);
    chunk_ends.push_back(r.size());
  }
  worker.exit();
  main.event(Type::join_end, capture::kJoin, 1).event(Type::process_end).exit();
  chunk_ends.push_back(r.size());
  TraceBytes bytes;
  size_t from = 0;
  for (size_t end : chunk_ends) {
    bytes.chunk({r.begin() + static_cast<std::ptrdiff_t>(from),
                 r.begin() + static_cast<std::ptrdiff_t>(end)});
    from = end;
  }
  bytes.end();
  const ReplayPass pass = replay_trace(profile::trace_from_bytes(bytes.bytes(), "test.trace"), 2,
                                       AssemblerCosts{}, {apart(2)});
  ASSERT_EQ(pass.results.size(), 1u);
  EXPECT_NEAR(pass.results[0].elapsed_ns / 1e6, kPeriods * kPairs * 1.0, 1e-6);
  EXPECT_LT(pass.results[0].peak_window, 4 * 4 * kPairs);
}

}  // namespace
}  // namespace quartz::analysis
