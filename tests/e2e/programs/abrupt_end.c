/* A program that ends abruptly, with another thread alive: main computes for MS ms while a
 * second thread wakes every millisecond (leaving a processor to the sampler on two, so that
 * its snapshots keep their period), then main prints its own wall time since main started and ends:
 *
 *   abrupt_end MODE MS
 *     exit        return from main (its exit handlers run)
 *     _exit       _exit(0)
 *     quick_exit  quick_exit(0)
 *     abort       abort()
 *     segv        a write through a null pointer (SIGSEGV)
 *     kill        SIGKILL to itself
 *
 * Prints "wall_ms=X" just before it ends.
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

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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

int main(int argc, char** argv) {
  start_ms = now_ms();
  if (argc < 3) return 2;
  const char* mode = argv[1];
  const double end = start_ms + atoi(argv[2]);
  pthread_t other;
  pthread_create(&other, NULL, ticker, NULL);
  while (now_ms() < end) {
    for (long i = 0; i < 10000; i++) compute(i);
  }
  printf("wall_ms=%.3f\n", now_ms() - start_ms);
  fflush(stdout);
  if (strcmp(mode, "_exit") == 0) _exit(0);
  if (strcmp(mode, "quick_exit") == 0) quick_exit(0);
  if (strcmp(mode, "abort") == 0) abort();
  if (strcmp(mode, "segv") == 0) *(volatile int*)0 = 1;
  if (strcmp(mode, "kill") == 0) raise(SIGKILL);
  exit(0); /* the ticker is still running: exit ends it */
}
