/* Whole-program workload for lock overhead: T threads each lock and unlock a mutex N
 * times, either each its own mutex (uncontended) or all the same one (contended).
 * Prints the mean wall-clock ns per lock/unlock pair per thread. Run with and without
 * LD_PRELOAD=libquartz.so.
 *
 *   lock_loop THREADS PAIRS_PER_THREAD own|shared
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One cache line per mutex and its counter, so that uncontended threads share nothing. */
typedef struct {
  pthread_mutex_t mutex;
  long counter;
} __attribute__((aligned(64))) padded_mutex;

static padded_mutex mutexes[64];
static long pairs;
static int shared;
static pthread_barrier_t start;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void* run(void* arg) {
  long index = (long)arg;
  padded_mutex* slot = &mutexes[shared ? 0 : index];
  pthread_mutex_t* m = &slot->mutex;
  volatile long* counter = &slot->counter;
  pthread_barrier_wait(&start);
  double begin = now_ns();
  for (long i = 0; i < pairs; i++) {
    pthread_mutex_lock(m);
    (*counter)++;
    pthread_mutex_unlock(m);
  }
  double* result = malloc(sizeof *result);
  *result = (now_ns() - begin) / (double)pairs;
  return result;
}

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  pairs = argc > 2 ? atol(argv[2]) : 10000000L;
  shared = argc > 3 && strcmp(argv[3], "shared") == 0;
  if (threads < 1 || threads > 64 || pairs < 1) {
    fprintf(stderr, "usage: lock_loop THREADS PAIRS own|shared\n");
    return 2;
  }
  for (int i = 0; i < 64; i++) pthread_mutex_init(&mutexes[i].mutex, NULL);
  pthread_barrier_init(&start, NULL, (unsigned)threads);
  pthread_t ids[64];
  for (long t = 1; t < threads; t++) pthread_create(&ids[t], NULL, run, (void*)t);
  double* first = run((void*)0);
  double sum = *first;
  free(first);
  for (int t = 1; t < threads; t++) {
    void* r;
    pthread_join(ids[t], &r);
    sum += *(double*)r;
    free(r);
  }
  printf("%.3f\n", sum / threads);
  return 0;
}
