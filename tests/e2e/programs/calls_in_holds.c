/* calls_in_holds: two threads each take a mutex ITERATIONS times (default 1000) and call
 * a procedure while they hold it, and call another with nothing held, each ~20,000
 * iterations of a loop (long enough for snapshots to see them). Prints the calls it made
 * to each: a call made while holding a lock is its holder's, as any other. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kThreads = 2 };
static pthread_mutex_t guarded = PTHREAD_MUTEX_INITIALIZER;
static long iterations = 1000;
static volatile long sink;

enum { kWork = 20000 };

__attribute__((noinline)) void update_inside(void) {
  for (int i = 0; i < kWork; i++) sink++;
}

__attribute__((noinline)) void update_outside(void) {
  for (int i = 0; i < kWork; i++) sink--;
}

__attribute__((noinline)) void* take_and_call(void* arg) {
  (void)arg;
  for (long i = 0; i < iterations; i++) {
    pthread_mutex_lock(&guarded);
    update_inside();
    pthread_mutex_unlock(&guarded);
    update_outside();
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) iterations = atol(argv[1]);
  if (iterations < 1) return 2;
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; i++) pthread_create(&threads[i], NULL, take_and_call, NULL);
  for (int i = 0; i < kThreads; i++) pthread_join(threads[i], NULL);
  printf("inside_calls=%ld\n", kThreads * iterations);
  printf("outside_calls=%ld\n", kThreads * iterations);
  return 0;
}
