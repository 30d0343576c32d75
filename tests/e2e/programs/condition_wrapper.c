/* condition_wrapper: a thread takes a mutex and waits on a condition inside a wrapper of
 * its own, as pbzip2's safe_cond_timed_wait does (and a C++ predicate wait's template):
 * procedures lie between the mutex and the condition on its stack. While it waits the
 * mutex is released, not held. main signals after --wait-ms (default 300).
 * Prints held_s (the waiter's lock to unlock, its waits left out, by its own clock) and
 * waited_s (its waits). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quartz/quartz.h"

static pthread_mutex_t guarded = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready;
static double held_s, waited_s;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) void wait_in_wrapper(pthread_cond_t* cond, pthread_mutex_t* mutex) {
  pthread_cond_wait(cond, mutex);
}

static void* waiter(void* unused) {
  pthread_mutex_lock(&guarded);
  const double locked = now_s();
  while (!ready) {
    const double began = now_s();
    wait_in_wrapper(&ready_cond, &guarded);
    waited_s += now_s() - began;
  }
  pthread_mutex_unlock(&guarded);
  held_s = now_s() - locked - waited_s;
  return unused;
}

int main(int argc, char** argv) {
  long wait_ms = 300;
  if (argc == 3 && strcmp(argv[1], "--wait-ms") == 0) wait_ms = atol(argv[2]);
  quartz_name_object(&guarded, "guarded");
  pthread_t thread;
  pthread_create(&thread, NULL, waiter, NULL);
  const struct timespec pause = {wait_ms / 1000, (wait_ms % 1000) * 1000000};
  nanosleep(&pause, NULL);
  pthread_mutex_lock(&guarded);
  ready = 1;
  pthread_cond_signal(&ready_cond);
  pthread_mutex_unlock(&guarded);
  pthread_join(thread, NULL);
  printf("held_s=%.6f\nwaited_s=%.6f\n", held_s, waited_s);
  return 0;
}
