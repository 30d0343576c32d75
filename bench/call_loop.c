/* Whole-program workload for hook overhead: T threads each make N calls to a tiny
 * function that is never inlined. Built plain, with -finstrument-functions (hooks from an
 * empty library or Quartz, preloaded or linked) and with -pg (gprof, uftrace). Prints
 * the mean wall-clock ns per call, measured inside the program around the calls only.
 *
 *   call_loop THREADS CALLS_PER_THREAD
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int step(int x) {
  __asm__ volatile("" : "+r"(x));
  return x + 1;
}

static long calls_per_thread;
static pthread_barrier_t start;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void* run(void* arg) {
  double* ns_per_call = arg;
  int x = 0;
  pthread_barrier_wait(&start);
  double begin = now_ns();
  for (long i = 0; i < calls_per_thread; i++) x = step(x);
  *ns_per_call = (now_ns() - begin) / (double)calls_per_thread;
  return x == -1 ? arg : NULL;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  calls_per_thread = argc > 2 ? atol(argv[2]) : 100000000L;
  if (threads < 1 || threads > 64 || calls_per_thread < 1) {
    fprintf(stderr, "usage: call_loop THREADS CALLS_PER_THREAD\n");
    return 2;
  }
  pthread_t ids[64];
  double ns[64];
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  for (int t = 1; t < threads; t++) pthread_create(&ids[t], NULL, run, &ns[t]);
  run(&ns[0]);
  double sum = ns[0];
  for (int t = 1; t < threads; t++) {
    pthread_join(ids[t], NULL);
    sum += ns[t];
  }
  printf("%.3f\n", sum / threads);
  return 0;
}
