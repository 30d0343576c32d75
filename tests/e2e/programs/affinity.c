/* Reports where each of its threads may run, for `quartz run --placement`.
 * main and three threads named w0, w1, w2 (each names itself, then reports); prints
 * "thread=<name> index=<i> cpus=<list>" per thread, the CPUs in its affinity mask. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void report(const char* name, int index) {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  char list[256] = "";
  for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
    if (!CPU_ISSET(cpu, &set)) continue;
    char one[16];
    snprintf(one, sizeof one, "%s%d", list[0] ? "," : "", cpu);
    strncat(list, one, sizeof list - strlen(list) - 1);
  }
  pthread_mutex_lock(&print_lock);
  printf("thread=%s index=%d cpus=%s\n", name, index, list);
  fflush(stdout);
  pthread_mutex_unlock(&print_lock);
}

static void* worker(void* arg) {
  const long i = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "w%ld", i);
  pthread_setname_np(pthread_self(), name);
  report(name, (int)i + 1);
  return NULL;
}

int main(void) {
  report("main", 0);
  pthread_t threads[3];
  /* One at a time: thread indices follow creation order. */
  for (long i = 0; i < 3; i++) {
    pthread_create(&threads[i], NULL, worker, (void*)i);
    pthread_join(threads[i], NULL);
  }
  return 0;
}
