/* Many threads runnable at once, with their own truths: `many_threads THREADS CPU_US`
 * creates THREADS threads that wait at one barrier, then each computes in calls of ~5 us
 * (`step`, a procedure the profiler sees; few enough that their hooks' cost, which the
 * profile takes out of processor time, stays under 0.5%) until its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) has advanced CPU_US microseconds past the barrier. On fewer
 * processors than threads, all of them are runnable at once for most of the run. main
 * prints:
 *   threads_cpu_ns=N   the sum of the threads' own clocks at their ends (from their starts)
 *   wall_ns=N          main's start to its return (CLOCK_MONOTONIC)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_barrier_t start_line;
static uint64_t cpu_wanted_ns;
static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void step(uint64_t seed) {
  for (int i = 0; i < 3000; i++) sink += (uint64_t)i * seed;
}

void* compute(void* argument) {
  uint64_t* used = argument;
  pthread_barrier_wait(&start_line);
  const uint64_t from = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  uint64_t now = from;
  while (now - from < cpu_wanted_ns) {
    for (int i = 0; i < 4; i++) step(now + (uint64_t)i);
    now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  }
  *used = now;
  return NULL;
}

int main(int argc, char** argv) {
  const uint64_t wall_start = clock_ns(CLOCK_MONOTONIC);
  if (argc != 3) {
    fprintf(stderr, "usage: many_threads THREADS CPU_US\n");
    return 2;
  }
  const long threads = strtol(argv[1], NULL, 10);
  cpu_wanted_ns = strtoull(argv[2], NULL, 10) * 1000u;
  if (threads < 1) return 2;
  uint64_t* used = calloc((size_t)threads, sizeof *used);
  pthread_t* handles = calloc((size_t)threads, sizeof *handles);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  if (!used || !handles || pthread_barrier_init(&start_line, NULL, (unsigned)threads + 1) != 0)
    return 1;
  for (long i = 0; i < threads; i++) {
    if (pthread_create(&handles[i], &attr, compute, &used[i]) != 0) return 1;
  }
  pthread_barrier_wait(&start_line);
  uint64_t total = 0;
  for (long i = 0; i < threads; i++) {
    pthread_join(handles[i], NULL);
    total += used[i];
  }
  printf("threads_cpu_ns=%llu\n", (unsigned long long)total);
  free(used);
  free(handles);
  fflush(stdout); /* written here, not at exit: main's time ends with the last line */
  printf("wall_ns=%llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - wall_start));
  return 0;
}
