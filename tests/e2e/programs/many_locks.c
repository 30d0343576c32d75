/* A program with more locks than a small object table holds: each of N mutexes is locked and
 * released once, so the runtime registers N objects.
 *
 *   many_locks N      prints "locks=N"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 100;
  pthread_mutex_t* locks = calloc((size_t)n, sizeof *locks);
  if (!locks) return 1;
  for (int i = 0; i < n; ++i) {
    pthread_mutex_init(&locks[i], NULL);
    pthread_mutex_lock(&locks[i]);
    pthread_mutex_unlock(&locks[i]);
  }
  for (int i = 0; i < n; ++i) pthread_mutex_destroy(&locks[i]);
  free(locks);
  printf("locks=%d\n", n);
  return 0;
}
