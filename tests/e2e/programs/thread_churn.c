/* Thread churn with its own truths: `thread_churn THREADS LIFE_US AT_ONCE` creates THREADS
 * threads, AT_ONCE alive at a time, each computing until its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) has advanced LIFE_US microseconds. Each thread's last reading of
 * its own clock is what it used; main prints them and its own wall clock, from its start to
 * its return:
 *   thread TID CPU_NS      one line per thread
 *   threads_cpu_ns=N       their sum
 *   clock_read_ns=N        what one reading of a thread's CPU clock costs (the median of
 *                          back-to-back pairs): a reading after a thread's last one, as a
 *                          profiler's at its end, comes at least that much later
 *   wall_ns=N              main's start to its return (CLOCK_MONOTONIC)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct Life {
  uint64_t life_ns;  // CPU time to use
  uint64_t used_ns;  // the thread's own clock at its end
  pid_t tid;
};

static volatile uint64_t sink;

// Inlined: the loop makes no call the profiler sees, so its time is the thread's own, with
// no hook cost taken out of it (a hook pair costs ~76 ns under ASan).
static inline __attribute__((always_inline)) uint64_t clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void* compute(void* argument) {
  struct Life* life = argument;
  life->tid = gettid();
  uint64_t used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  while (used < life->life_ns) {
    for (int i = 0; i < 100; i++) sink += (uint64_t)i * used;
    used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  }
  life->used_ns = used;
  return NULL;
}

static int by_value(const void* a, const void* b) {
  const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static uint64_t clock_read_ns(void) {
  enum { kPairs = 101 };
  uint64_t gaps[kPairs];
  for (int i = 0; i < kPairs; i++) {
    const uint64_t first = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    gaps[i] = clock_ns(CLOCK_THREAD_CPUTIME_ID) - first;
  }
  qsort(gaps, kPairs, sizeof gaps[0], by_value);
  return gaps[kPairs / 2];
}

int main(int argc, char** argv) {
  const uint64_t wall_start = clock_ns(CLOCK_MONOTONIC);
  if (argc != 4) {
    fprintf(stderr, "usage: thread_churn THREADS LIFE_US AT_ONCE\n");
    return 2;
  }
  const long threads = strtol(argv[1], NULL, 10);
  const uint64_t life_ns = strtoull(argv[2], NULL, 10) * 1000u;
  long at_once = strtol(argv[3], NULL, 10);
  if (threads < 1 || at_once < 1) return 2;
  if (at_once > threads) at_once = threads;
  struct Life* lives = calloc((size_t)threads, sizeof *lives);
  pthread_t* handles = calloc((size_t)at_once, sizeof *handles);
  if (!lives || !handles) return 1;
  for (long first = 0; first < threads; first += at_once) {
    const long n = threads - first < at_once ? threads - first : at_once;
    for (long i = 0; i < n; i++) {
      lives[first + i].life_ns = life_ns;
      if (pthread_create(&handles[i], NULL, compute, &lives[first + i]) != 0) return 1;
    }
    for (long i = 0; i < n; i++) pthread_join(handles[i], NULL);
  }
  uint64_t total = 0;
  for (long i = 0; i < threads; i++) {
    printf("thread %d %llu\n", (int)lives[i].tid, (unsigned long long)lives[i].used_ns);
    total += lives[i].used_ns;
  }
  printf("threads_cpu_ns=%llu\n", (unsigned long long)total);
  printf("clock_read_ns=%llu\n", (unsigned long long)clock_read_ns());
  free(lives);
  free(handles);
  fflush(stdout); /* written here, not at exit: main's time ends with the last line */
  printf("wall_ns=%llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - wall_start));
  return 0;
}
