/* Many objects for the predictor (bench/predict_scale.sh): four threads take N mutexes in
 * turn, ROUNDS times over, each hand-off a dependency the replay follows.
 *
 *   many_objects ROUNDS N        prints "acquisitions=..."
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { kThreads = 4 };
static pthread_mutex_t* locks;
static int rounds, objects;
static volatile long sink;

static void* take_in_turn(void* arg) {
  const long id = (long)arg;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < objects; i++) {
      pthread_mutex_t* m = &locks[(i * 7L + id * 13L) % objects];
      pthread_mutex_lock(m);
      sink++;
      pthread_mutex_unlock(m);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  rounds = argc > 1 ? atoi(argv[1]) : 2;
  objects = argc > 2 ? atoi(argv[2]) : 100000;
  if (rounds < 1 || objects < 1) return 2;
  locks = calloc((size_t)objects, sizeof *locks);
  if (!locks) return 1;
  for (int i = 0; i < objects; i++) pthread_mutex_init(&locks[i], NULL);
  pthread_t threads[kThreads];
  for (long i = 0; i < kThreads; i++) pthread_create(&threads[i], NULL, take_in_turn, (void*)i);
  for (int i = 0; i < kThreads; i++) pthread_join(threads[i], NULL);
  printf("acquisitions=%ld\n", (long)kThreads * rounds * objects);
  free(locks);
  return 0;
}
