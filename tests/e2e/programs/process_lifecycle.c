/* Process-level events, one mode per run:
 *   fork         a worker thread forks while other threads take a lock; the child takes
 *                lock "child_lock" 300 times and exits; the parent takes "parent_lock"
 *                500 times. The child also runs `sh -c` to show what it inherits.
 *   exit-thread  a worker calls exit(3) while main waits in pthread_join
 *   exit-main    main calls pthread_exit; 3 workers finish afterwards (200 calls each)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "quartz/quartz.h"

static pthread_mutex_t parent_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t child_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int stop;
static volatile long sink;

void step(void) {
  sink++;
}

void* lock_taker(void* arg) {
  (void)arg;
  while (!stop) {
    pthread_mutex_lock(&parent_lock);
    pthread_mutex_unlock(&parent_lock);
  }
  return NULL;
}

void child_work(void) {
  for (int i = 0; i < 300; i++) {
    pthread_mutex_lock(&child_lock);
    step();
    pthread_mutex_unlock(&child_lock);
  }
  fflush(stdout);
  /* Only the program the user launched is profiled unless QUARTZ_FOLLOW_EXEC is set. */
  int rc = system("echo child_preload=${LD_PRELOAD:-none}");
  exit(rc == 0 ? 0 : 9);
}

void* forker(void* arg) {
  (void)arg;
  pid_t pid = fork();
  if (pid == 0) child_work();
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child_pid=%d\n", (int)pid);
  printf("child_status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return NULL;
}

void run_fork(void) {
  quartz_name_object(&parent_lock, "parent_lock");
  quartz_name_object(&child_lock, "child_lock");
  pthread_t takers[2], f;
  for (int i = 0; i < 2; i++) pthread_create(&takers[i], NULL, lock_taker, NULL);
  pthread_create(&f, NULL, forker, NULL);
  pthread_join(f, NULL);
  stop = 1;
  for (int i = 0; i < 2; i++) pthread_join(takers[i], NULL);
}

void* exiter(void* arg) {
  (void)arg;
  step();
  exit(3);
}

void* finisher(void* arg) {
  (void)arg;
  for (int i = 0; i < 200; i++) step();
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "fork";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (strcmp(mode, "fork") == 0) run_fork();
  if (strcmp(mode, "exit-thread") == 0) {
    pthread_t t;
    pthread_create(&t, NULL, exiter, NULL);
    pthread_join(t, NULL);
    return 0; /* not reached */
  }
  if (strcmp(mode, "exit-main") == 0) {
    pthread_t t[3];
    for (int i = 0; i < 3; i++) pthread_create(&t[i], NULL, finisher, NULL);
    pthread_exit(NULL);
  }
  return 0;
}
