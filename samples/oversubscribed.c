/* oversubscribed: more threads than processors, meeting at a barrier after each step.
 *
 * Each of T threads computes W ms of processor time in do_step(), then waits at a barrier
 * for the others; S steps. Truth, by construction, with T = P + 1 (the default on 2
 * processors):
 *   - the work is T S W ms of processor time, and every thread's share is the same;
 *   - P threads doing the same work would take T S W / P (0.6 s by default);
 *   - T threads take about 2 S W (0.8 s): each step, two threads share one processor while
 *     the other's thread finishes and waits, leaving its processor idle for W. The idle
 *     processor time, about (2 S W - T S W / P) P, is the cost of running more busy threads
 *     than processors.
 * Prints its measured truth: thread_<i>_cpu_s (each thread's CPU clock), elapsed_s, and
 * as_p_threads_s (T S W / P, the elapsed time of the same work on P threads).
 *
 *   oversubscribed [--threads T] [--step-ms W] [--steps S]
 *   defaults:       P + 1        4            100
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "sample_args.h"
#include "sample_work.h"

#define MAX_THREADS 64

static long step_ms = 4, steps = 100;
static pthread_barrier_t step_end;
static double thread_cpu_s[MAX_THREADS];

SAMPLE_PROCEDURE void do_step(void) {
  compute(step_ms * 1000);
}

SAMPLE_PROCEDURE void* worker(void* arg) {
  long i = (long)(size_t)arg;
  for (long s = 0; s < steps; s++) {
    do_step();
    pthread_barrier_wait(&step_end);
  }
  thread_cpu_s[i] = clock_s(CLOCK_THREAD_CPUTIME_ID);
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  const long processors = sysconf(_SC_NPROCESSORS_ONLN);
  long threads = processors + 1 <= MAX_THREADS ? processors + 1 : MAX_THREADS;
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, MAX_THREADS},
      {"--step-ms", &step_ms, 0, 100000},
      {"--steps", &steps, 0, 1000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  pthread_barrier_init(&step_end, NULL, (unsigned)threads);
  pthread_t ids[MAX_THREADS];
  for (long t = 0; t < threads; t++) {
    if (pthread_create(&ids[t], NULL, worker, (void*)(size_t)t) != 0) {
      fprintf(stderr, "oversubscribed: cannot create thread %ld\n", t);
      return 1;
    }
  }
  for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  for (long t = 0; t < threads; t++) printf("thread_%ld_cpu_s=%.6f\n", t, thread_cpu_s[t]);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  printf("as_p_threads_s=%.6f\n", (double)threads * steps * step_ms / 1e3 / (double)processors);
  return 0;
}
