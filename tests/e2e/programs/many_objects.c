/* Many objects for the sampler (many_objects_e2e_test.cpp) and the predictor
 * (bench/predict_scale.sh): four threads take N mutexes in turn, ROUNDS times
 * over, each hand-off a dependency the replay follows, with WORK iterations of a loop in
 * each hold (1 by default: a burst of events).
 *
 *   many_objects ROUNDS N [WORK]   prints "acquisitions=...", "max_hold_ns=" (the most
 *                                  time any one mutex was held, all its holds together,
 *                                  by the holders' wall clock) and "wall_ns=" (main's own)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kThreads = 4 };
static pthread_mutex_t* locks;
static unsigned long long* held_ns; /* each mutex's, written by its holder */
static int rounds, objects, work;
static volatile long sink;

/* Inlined: a call in a hold would be a call edge from each mutex (125,000 of them). */
static inline __attribute__((always_inline)) unsigned long long monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void* take_in_turn(void* arg) {
  const long id = (long)arg;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < objects; i++) {
      const long which = (i * 7L + id * 13L) % objects;
      pthread_mutex_lock(&locks[which]);
      const unsigned long long taken = monotonic_ns();
      for (int k = 0; k < work; k++) sink++;
      held_ns[which] += monotonic_ns() - taken;
      pthread_mutex_unlock(&locks[which]);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  const unsigned long long start = monotonic_ns();
  rounds = argc > 1 ? atoi(argv[1]) : 2;
  objects = argc > 2 ? atoi(argv[2]) : 100000;
  work = argc > 3 ? atoi(argv[3]) : 1;
  if (rounds < 1 || objects < 1 || work < 0) return 2;
  locks = calloc((size_t)objects, sizeof *locks);
  held_ns = calloc((size_t)objects, sizeof *held_ns);
  if (!locks || !held_ns) return 1;
  for (int i = 0; i < objects; i++) pthread_mutex_init(&locks[i], NULL);
  pthread_t threads[kThreads];
  for (long i = 0; i < kThreads; i++) pthread_create(&threads[i], NULL, take_in_turn, (void*)i);
  for (int i = 0; i < kThreads; i++) pthread_join(threads[i], NULL);
  printf("acquisitions=%ld\n", (long)kThreads * rounds * objects);
  unsigned long long max_hold = 0;
  for (int i = 0; i < objects; i++) max_hold = held_ns[i] > max_hold ? held_ns[i] : max_hold;
  printf("max_hold_ns=%llu\n", max_hold);
  free(held_ns);
  free(locks);
  printf("wall_ns=%llu\n", monotonic_ns() - start);
  return 0;
}
