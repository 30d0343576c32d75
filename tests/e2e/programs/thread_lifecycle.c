/* Thread creation, inheritance, naming and churn, one mode per run:
 *   inherit   spawner() creates 4 named threads running worker(): their work is on
 *             behalf of spawner (the worker's caller is spawner)
 *   churn [N] N threads (10000) created and joined one after another, after 200 to warm
 *             up; prints the growth of resident memory in kB
 *   unseen    2 threads created through libc's own pthread_create (as if created before
 *             the runtime loaded): registered on their first event
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile long sink;

void leaf(void) {
  sink++;
}

void* worker(void* arg) {
  char name[16];
  snprintf(name, sizeof name, "worker-%ld", (long)arg);
  pthread_setname_np(pthread_self(), name);
  for (int i = 0; i < 100; i++) {
    pthread_mutex_lock(&lock);
    leaf();
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

void spawner(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; i++) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
}

void* short_life(void* arg) {
  leaf();
  return arg;
}

static long resident_kb(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  }
  if (f) fclose(f);
  return kb;
}

void churn(int threads) {
  for (int i = 0; i < 200; i++) { /* warm up: first blocks, first chunks */
    pthread_t t;
    pthread_create(&t, NULL, short_life, NULL);
    pthread_join(t, NULL);
  }
  long before = resident_kb();
  for (int i = 0; i < threads; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, short_life, NULL) != 0) exit(2);
    pthread_join(t, NULL);
  }
  printf("rss_growth_kb=%ld\n", resident_kb() - before);
}

void unseen(void) {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  typedef int (*create_fn)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  create_fn libc_create = (create_fn)dlsym(libc, "pthread_create");
  pthread_t t[2];
  for (long i = 0; i < 2; i++) libc_create(&t[i], NULL, worker, (void*)(10 + i));
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "inherit";
  if (strcmp(mode, "inherit") == 0) spawner();
  if (strcmp(mode, "churn") == 0) churn(argc > 2 ? atoi(argv[2]) : 10000);
  if (strcmp(mode, "unseen") == 0) unseen();
  return 0;
}
