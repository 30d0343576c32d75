// The wake-up latency the replay adds, as measured from a hand-built trace whose wake-ups
// took known times.
#include "analysis/wake_latency.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/testing/trace_builder.h"

namespace quartz::analysis {
namespace wake_latency_test {  // its own names in a unity build
namespace {

using test_support::BuiltRecord;
using test_support::Timeline;
using test_support::TraceBytes;
using trace::Type;

constexpr uint64_t kCond = 0x4000, kMutex = 0x3000;

WakeLatency measure(const std::vector<BuiltRecord>& records, size_t per_chunk) {
  TraceBytes bytes;
  bytes.chunks(records, per_chunk);
  bytes.end();
  return measure_wake_latency(profile::trace_from_bytes(bytes.bytes(), "test.trace"));
}

// A waiter (thread 2) woken `latencies_ms` after each of the signaller's (thread 1)
// signals, one every 4 ms; its records come first, so that in small chunks a signal may
// come in a chunk after its wake.
std::vector<BuiltRecord> wake_ups(const std::vector<double>& latencies_ms) {
  std::vector<BuiltRecord> waiter_records, signaller_records;
  Timeline waiter(2, waiter_records), signaller(1, signaller_records);
  waiter.event(Type::thread_start, 0, 0);
  signaller.event(Type::thread_start, 0, 0);
  for (uint32_t k = 1; k <= latencies_ms.size(); ++k) {
    const double signal_ms = 4.0 * k;
    waiter.until(signal_ms - 1).event(Type::cond_wait, capture::kCondition, kCond, k - 1);
    signaller.until(signal_ms).event(Type::cond_signal, capture::kCondition, kCond, k);
    waiter.until(signal_ms + latencies_ms[k - 1])
        .event(Type::cond_wake, capture::kCondition, kCond, k)
        .event(Type::lock_acquire, capture::kMutex, kMutex, k);
  }
  waiter.exit();
  signaller.exit();
  waiter_records.insert(waiter_records.end(), signaller_records.begin(), signaller_records.end());
  return waiter_records;
}

TEST(WakeLatency, TheMedianOfTheWakeUpsThatWokeAProcessor) {
  // 4 found their processor running (2 us), 16 woke one (25 to 40 us); one waited for a
  // processor as well (3 ms): left out.
  std::vector<double> latencies{0.002, 0.002, 0.002, 0.002, 3.0};
  for (int i = 0; i < 16; ++i) latencies.push_back(0.025 + 0.001 * i);
  for (size_t per_chunk : {size_t{1} << 20, size_t{7}}) {
    const WakeLatency w = measure(wake_ups(latencies), per_chunk);
    EXPECT_EQ(w.wake_ups, 20u) << per_chunk;
    EXPECT_EQ(w.idle_wake_ups, 16u) << per_chunk;
    EXPECT_NEAR(w.idle_ns, 33000, 1) << per_chunk;  // the upper median of 25..40 us
  }
}

// A trace with more wakers than the pass keeps at once (64 Ki) over more than 100 ms: the
// old ones are forgotten as the trace goes on, the ones of the last 100 ms kept, so a
// wake-up still finds its waker read chunks before. Thread 3 signals a condition nobody
// waits on every 1.25 us (80,000 in 100 ms) while the wake-ups of the test above (without
// the one that waited for a processor too) happen from 150 ms, all read in time order.
TEST(WakeLatency, RecentWakersOutliveATableOfMany) {
  std::vector<double> latencies{0.002, 0.002, 0.002, 0.002};
  for (int i = 0; i < 16; ++i) latencies.push_back(0.025 + 0.001 * i);
  std::vector<BuiltRecord> records = wake_ups(latencies);
  for (BuiltRecord& r : records) r.time_ms += 150;
  Timeline noise(3, records);
  noise.event(Type::thread_start, 0, 0);
  for (uint32_t k = 1; k <= 184000; ++k) {
    noise.until(0.00125 * k).event(Type::cond_signal, capture::kCondition, kCond + 1, k);
  }
  noise.exit();
  std::stable_sort(records.begin(), records.end(), [](const BuiltRecord& a, const BuiltRecord& b) {
    return a.time_ms < b.time_ms;
  });
  const WakeLatency w = measure(records, 7);
  EXPECT_EQ(w.wake_ups, 20u);
  EXPECT_NEAR(w.idle_ns, 33000, 1);
}

// `quartz predict` starts the pass before it reads the run and stops it on an error: a
// stopped pass reads no further chunk (here: none, so no wake-up; the same trace read
// whole has 20).
TEST(WakeLatency, AStoppedPassReadsNoFurther) {
  std::vector<double> latencies(20, 0.030);
  TraceBytes bytes;
  bytes.chunks(wake_ups(latencies), 7);
  bytes.end();
  const std::atomic<bool> stop{true};
  const WakeLatency w =
      measure_wake_latency(profile::trace_from_bytes(bytes.bytes(), "test.trace"), &stop);
  EXPECT_EQ(w.wake_ups, 0u);
  EXPECT_EQ(measure(wake_ups(latencies), 7).wake_ups, 20u);
}

TEST(WakeLatency, WakeUpsWithoutAKnownWakerDoNotCount) {
  std::vector<BuiltRecord> r;
  Timeline waiter(2, r), signaller(1, r);
  waiter.event(Type::thread_start, 0, 0);
  signaller.event(Type::thread_start, 0, 0);
  for (uint32_t k = 1; k <= 40; ++k) {
    // Two signals in each wait: either could have woken it.
    waiter.until(4.0 * k - 1).event(Type::cond_wait, capture::kCondition, kCond, 2 * k - 2);
    signaller.until(4.0 * k).event(Type::cond_signal, capture::kCondition, kCond, 2 * k - 1);
    signaller.event(Type::cond_signal, capture::kCondition, kCond, 2 * k);
    waiter.until(4.0 * k + 0.03).event(Type::cond_wake, capture::kCondition, kCond, 2 * k);
  }
  waiter.exit();
  signaller.exit();
  const WakeLatency w = measure(r, 1 << 20);
  EXPECT_EQ(w.wake_ups, 0u);
  EXPECT_EQ(w.idle_ns, 0);  // too few to tell: the replay's wake-ups stay instantaneous
}

}  // namespace
}  // namespace wake_latency_test
}  // namespace quartz::analysis
