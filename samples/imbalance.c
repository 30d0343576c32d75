/* imbalance: threads given unequal shares of the work.
 *
 * Thread i of T computes (i + 1) * W ms of processor time in do_share(), then main joins
 * them all. Truth, by construction:
 *   - the busy time of thread i is proportional to i + 1 (all of it in do_share), and the
 *     imbalance, max / mean of the threads' processor times, is 2T / (T + 1);
 *   - when T <= P the elapsed time is the slowest thread's, T * W ms, and processors sit
 *     idle as threads finish; when T > P the elapsed time is at least the total work
 *     divided by P (the defaults on 2 processors: 10 W / 2 = 1.0 s, 1.1 s as scheduled).
 * Prints its measured truth: thread_<i>_cpu_s (each thread's CPU clock), imbalance,
 * elapsed_s.
 *
 *   imbalance [--threads T] [--unit-ms W]
 *   defaults:  4            200
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sample_args.h"
#include "sample_work.h"

#define MAX_THREADS 64

static long unit_ms = 200;
static double thread_cpu_s[MAX_THREADS];

/* Thread i's share of the work: (i + 1) units. */
SAMPLE_PROCEDURE void do_share(long i) {
  compute((i + 1) * unit_ms * 1000);
}

SAMPLE_PROCEDURE void* worker(void* arg) {
  long i = (long)(size_t)arg;
  char name[16];
  snprintf(name, sizeof name, "share_%ld", i);
  pthread_setname_np(pthread_self(), name);
  do_share(i);
  thread_cpu_s[i] = clock_s(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  long threads = 4;
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, MAX_THREADS},
      {"--unit-ms", &unit_ms, 0, 100000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  pthread_t ids[MAX_THREADS];
  for (long t = 0; t < threads; t++) {
    if (pthread_create(&ids[t], NULL, worker, (void*)(size_t)t) != 0) {
      fprintf(stderr, "imbalance: cannot create thread %ld\n", t);
      return 1;
    }
  }
  for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);

  double sum_s = 0, max_s = 0;
  for (long t = 0; t < threads; t++) {
    printf("thread_%ld_cpu_s=%.6f\n", t, thread_cpu_s[t]);
    sum_s += thread_cpu_s[t];
    if (thread_cpu_s[t] > max_s) max_s = thread_cpu_s[t];
  }
  printf("imbalance=%.4f\n", sum_s > 0 ? max_s / (sum_s / threads) : 1.0);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
