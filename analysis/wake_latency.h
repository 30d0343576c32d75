// How long the recorded machine took to wake a thread blocked in a wait on an idle
// processor, measured from the trace itself. The replay adds it to every wake-up onto an
// idle processor (Simulation: wake_latency_ns); without it, wake-ups were instantaneous,
// which put condition-variable pipelines and a thread pool 5 to 9% fast here: thousands of
// hand-offs, each 20-30 us on this virtual machine's halted processors.
//
// A wake-up counts when its waker is known for sure: a condition wait during which the
// condition was signalled exactly once (the wake reads one more signal than the wait
// did), a semaphore wait that blocked before the post it consumed, a lock acquisition
// requested before the release it followed. Its latency is the woken thread's event
// minus the waker's; over 1 ms, it waited for a processor or a lock as well and is left
// out. The fastest found their processor running (the woken thread preempted the one
// there, or the waker blocked and handed over its own); the estimate is the median of
// those that took more than twice the 10th percentile: the ones that had to wake one.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "profile/trace_reader.h"

namespace quartz::analysis {

struct WakeLatency {
  double idle_ns = 0;          // 0: not enough wake-ups to tell
  uint64_t wake_ups = 0;       // wake-ups whose waker was known
  uint64_t idle_wake_ups = 0;  // of those, the ones that woke a processor: idle_ns is their median
};

inline constexpr uint64_t kMinimumWakeUps = 16;

// Reads the trace from its start until it has seen kEnoughWakeUps clean wake-ups (or its
// end, or `stop` is set: then what it has). Throws profile::TraceError as the reader does.
WakeLatency measure_wake_latency(std::unique_ptr<profile::TraceSource> source,
                                 const std::atomic<bool>* stop = nullptr);

}  // namespace quartz::analysis
