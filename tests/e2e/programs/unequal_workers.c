/* unequal_workers: compute-bound workers of unequal length with a short shared critical
 * section, the program a new user tried in issue 15 item 4 (the grouping that puts the
 * longest and the shortest worker on one processor was predicted 20-33% slow).
 *
 * Worker i (thread i + 1; main is thread 0) computes (i + 1) * C chunks of U microseconds
 * (do_chunk), and after each chunk adds to a shared total under one mutex, held H
 * microseconds (add_to_total). Truth, by construction:
 *   - worker i's processor time is (i + 1) C (U + H);
 *   - pinned two to a processor, a processor takes as long as its two workers' processor
 *     time added up, plus what they wait for the lock (short: H is small);
 *   - the defaults on 2 processors: 10 C U = 1.0 s of work; {w0, w3} | {w1, w2} is 0.5 s,
 *     {w0, w1} | {w2, w3} 0.7 s.
 * Prints each worker's CPU clock (worker_<i>_cpu_s), the lock's acquisitions and elapsed_s
 * (main's start to its end).
 *
 *   unequal_workers [--workers W] [--chunks C] [--chunk-us U] [--hold-us H]
 *   defaults:        4             500          200            5
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "sample_args.h"
#include "sample_work.h"

#define MAX_WORKERS 32

static long chunks = 500, chunk_us = 200, hold_us = 5;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;
static long total, acquisitions;
static double worker_cpu_s[MAX_WORKERS];

void do_chunk(void) {
  compute(chunk_us);
}

void add_to_total(long i) {
  pthread_mutex_lock(&total_lock);
  compute(hold_us);
  total += i + 1;
  ++acquisitions;
  pthread_mutex_unlock(&total_lock);
}

static void* worker(void* arg) {
  long i = (long)(size_t)arg;
  char name[16];
  snprintf(name, sizeof name, "worker_%ld", i);
  pthread_setname_np(pthread_self(), name);
  for (long c = 0; c < (i + 1) * chunks; ++c) {
    do_chunk();
    add_to_total(i);
  }
  worker_cpu_s[i] = clock_s(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  long workers = 4;
  struct sample_flag flags[] = {
      {"--workers", &workers, 1, MAX_WORKERS},
      {"--chunks", &chunks, 0, 100000000},
      {"--chunk-us", &chunk_us, 0, 10000000},
      {"--hold-us", &hold_us, 0, 10000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  pthread_t ids[MAX_WORKERS];
  for (long i = 0; i < workers; ++i) {
    if (pthread_create(&ids[i], NULL, worker, (void*)(size_t)i) != 0) {
      fprintf(stderr, "unequal_workers: cannot create worker %ld\n", i);
      return 1;
    }
  }
  for (long i = 0; i < workers; ++i) pthread_join(ids[i], NULL);
  for (long i = 0; i < workers; ++i) printf("worker_%ld_cpu_s=%.6f\n", i, worker_cpu_s[i]);
  printf("acquisitions=%ld\n", acquisitions);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
