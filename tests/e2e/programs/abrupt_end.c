/* A program that ends abruptly, with another thread alive: main computes for MS ms while a
 * second thread wakes every millisecond (leaving a processor to the sampler on two, so that
 * its snapshots keep their period), then main prints its own wall time since main started and ends:
 *
 *   abrupt_end MODE MS [OBJECTS]
 *     exit        return from main (its exit handlers run)
 *     _exit       _exit(0)
 *     quick_exit  quick_exit(0)
 *     abort       abort()
 *     segv        a write through a null pointer (SIGSEGV)
 *     kill        SIGKILL to itself
 *
 * With OBJECTS, main first takes that many mutexes once each: a capture too big to publish
 * every period (125,000: 13 MB), so the last phase must reach the stored run as amendments.
 *
 * Prints "wall_ms=X" (since main started), "phase_cpu_ms=Y" (main's processor time in
 * work_until, its last phase, by its own clock) and "end_realtime_ns=Z" (CLOCK_REALTIME,
 * to compare with a time taken outside, before the program began) just before it ends.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
static double start_ms;

static double clock_ms(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static double now_ms(void) {
  return clock_ms(CLOCK_MONOTONIC);
}

void compute(long i) {
  sink += i;
}

static void* ticker(void* arg) {
  (void)arg;
  for (;;) {
    for (long i = 0; i < 1000; i++) compute(i);
    usleep(1000);
  }
  return NULL;
}

/* No call inside: the hooks' cost, which the profile takes out, is not in its clock. */
__attribute__((noinline)) void work_until(double end) {
  while (now_ms() < end) {
    for (long i = 0; i < 10000; i++) sink += i;
  }
}

int main(int argc, char** argv) {
  start_ms = now_ms();
  if (argc < 3) return 2;
  const char* mode = argv[1];
  const long objects = argc > 3 ? atol(argv[3]) : 0;
  pthread_t other;
  pthread_create(&other, NULL, ticker, NULL);
  pthread_mutex_t* locks = objects > 0 ? calloc((size_t)objects, sizeof *locks) : NULL;
  for (long i = 0; locks && i < objects; i++) {
    pthread_mutex_init(&locks[i], NULL);
    pthread_mutex_lock(&locks[i]);
    pthread_mutex_unlock(&locks[i]);
  }
  const double phase_cpu = clock_ms(CLOCK_THREAD_CPUTIME_ID);
  work_until(now_ms() + atoi(argv[2]));
  printf("phase_cpu_ms=%.3f\n", clock_ms(CLOCK_THREAD_CPUTIME_ID) - phase_cpu);
  printf("wall_ms=%.3f\n", now_ms() - start_ms);
  struct timespec end;
  clock_gettime(CLOCK_REALTIME, &end);
  printf("end_realtime_ns=%lld\n", (long long)end.tv_sec * 1000000000LL + end.tv_nsec);
  fflush(stdout);
  if (strcmp(mode, "_exit") == 0) _exit(0);
  if (strcmp(mode, "quick_exit") == 0) quick_exit(0);
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "segv") == 0) *(volatile int*)0 = 1;
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  exit(0); /* the ticker is still running: exit ends it */
}
