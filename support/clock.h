// Cheap timestamps for the runtime's own measurements of waits (DESIGN.md §3: the
// contended path must stay cheap). On x86-64 the time-stamp counter (about 12 ns to read
// here, against 30 ns for clock_gettime); elsewhere, monotonic nanoseconds. Readers
// convert ticks to nanoseconds with a ratio measured over the run (TickCalibration).
#pragma once

#include <time.h>

#include <cstdint>

#include "support/attributes.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace quartz::support {

QUARTZ_ALWAYS_INLINE uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

QUARTZ_ALWAYS_INLINE uint64_t ticks() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return monotonic_ns();
#endif
}

// Sleeps until the monotonic clock reads `monotonic_ns`.
QUARTZ_NOINSTR inline void sleep_until_ns(uint64_t monotonic_ns) {
  const timespec at{static_cast<time_t>(monotonic_ns / 1000000000),
                    static_cast<long>(monotonic_ns % 1000000000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
}

// Ticks-to-nanoseconds ratio, from two (ticks, ns) readings taken far enough apart.
struct TickCalibration {
  uint64_t start_ticks = 0;
  uint64_t start_ns = 0;

  QUARTZ_NOINSTR void start() {
    start_ns = monotonic_ns();
    start_ticks = ticks();
  }
  // Nanoseconds per tick, measured from start() to now (at least 2 ms apart: waits if
  // needed, so call it off the hot path).
  QUARTZ_NOINSTR double ns_per_tick() const {
    uint64_t now = monotonic_ns();
    while (now - start_ns < 2000000) now = monotonic_ns();
    const uint64_t t = ticks();
    return t > start_ticks
               ? static_cast<double>(now - start_ns) / static_cast<double>(t - start_ticks)
               : 1.0;
  }
};

}  // namespace quartz::support
