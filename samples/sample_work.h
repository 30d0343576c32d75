/* The samples' cost model: burning a known amount of processor time, and clocks. Built
 * without instrumentation, so the time is charged to the sample's own procedure that asks
 * for it (log_message, kernel_3, serve_class_b, ...), as if it were that procedure's code. */
#ifndef QUARTZ_SAMPLE_WORK_H
#define QUARTZ_SAMPLE_WORK_H

#include <time.h>

#define SAMPLE_UNINSTRUMENTED \
  __attribute__((no_instrument_function, patchable_function_entry(0, 0), unused))

/* A procedure of the sample's own, kept one as it would be in a real program whose
 * procedures live in several files: with patched entries (the default), Quartz sees the
 * procedures left after inlining, and the samples' truths name these. */
#define SAMPLE_PROCEDURE __attribute__((noinline))

static volatile double sample_work_sink;

SAMPLE_UNINSTRUMENTED static inline double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

SAMPLE_UNINSTRUMENTED static inline double clock_s(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Burns `us` microseconds of the calling thread's processor time. The thread's CPU clock
 * decides when to stop, so the cost holds when the thread is preempted; the cheap wall
 * clock paces the loop between reads of the CPU clock (a system call). */
SAMPLE_UNINSTRUMENTED static inline void compute(long us) {
  double end = clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e6 + (double)us;
  double x = 1.0;
  for (double left = (double)us; left > 0; left = end - clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e6) {
    double until = now_us() + left;
    while (now_us() < until) {
      for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
    }
  }
  sample_work_sink = x;
}

#endif
