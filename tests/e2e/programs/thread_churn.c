/* Thread churn with its own truths: `thread_churn THREADS LIFE_US AT_ONCE` creates THREADS
 * threads, AT_ONCE alive at a time, each computing until its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID) has advanced LIFE_US microseconds. Each thread's last reading of
 * its own clock is what it used; a destructor of a key of its own reads the clock once more
 * as the thread ends, after its start routine has returned (a profiler that reads a thread's
 * end there comes between the two). main prints them and its own wall clock, from its start
 * to its return:
 *   thread TID CPU_NS AFTER_NS   one line per thread: its last reading, then its destructor's
 *   threads_cpu_ns=N       the sum of the last readings
 *   threads_after_ns=N     the sum of the destructors' readings
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
  uint64_t life_ns;   // CPU time to use
  uint64_t used_ns;   // the thread's own clock at its end
  uint64_t after_ns;  // read again by the key's destructor, after the routine returned
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

static pthread_key_t after_key;

static void read_after(void* value) {
  struct Life* life = value;
  life->after_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

void* compute(void* argument) {
  struct Life* life = argument;
  life->tid = gettid();
  pthread_setspecific(after_key, life);
  uint64_t used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  while (used < life->life_ns) {
    for (int i = 0; i < 100; i++) sink += (uint64_t)i * used;
    used = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  }
  life->used_ns = used;
  return NULL;
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
  if (!lives || !handles || pthread_key_create(&after_key, read_after) != 0) return 1;
  for (long first = 0; first < threads; first += at_once) {
    const long n = threads - first < at_once ? threads - first : at_once;
    for (long i = 0; i < n; i++) {
      lives[first + i].life_ns = life_ns;
      if (pthread_create(&handles[i], NULL, compute, &lives[first + i]) != 0) return 1;
    }
    for (long i = 0; i < n; i++) pthread_join(handles[i], NULL);
  }
  uint64_t total = 0, total_after = 0;
  for (long i = 0; i < threads; i++) {
    printf("thread %d %llu %llu\n", (int)lives[i].tid, (unsigned long long)lives[i].used_ns,
           (unsigned long long)lives[i].after_ns);
    total += lives[i].used_ns;
    total_after += lives[i].after_ns;
  }
  printf("threads_cpu_ns=%llu\n", (unsigned long long)total);
  printf("threads_after_ns=%llu\n", (unsigned long long)total_after);
  free(lives);
  free(handles);
  fflush(stdout); /* written here, not at exit: main's time ends with the last line */
  printf("wall_ns=%llu\n", (unsigned long long)(clock_ns(CLOCK_MONOTONIC) - wall_start));
  return 0;
}
