/* Waiting known by construction:
 *   mode "mutex":   `holder` holds lock "slow" for 200 ms; `waiter` blocks on it meanwhile.
 *   mode "spin":    `holder` holds spin lock "spin" for 150 ms; `waiter` spins meanwhile.
 *   mode "barrier": `waiter` waits 200 ms at barrier "late" for `holder`, who sleeps first.
 *   mode "region":  the main thread busy-waits 100 ms inside a quartz_spin_begin/end region.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quartz/quartz.h"

static pthread_mutex_t slow = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t held;
static pthread_barrier_t late;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void busy_for(double ms) {
  double end = now_ms() + ms;
  while (now_ms() < end) {
  }
}

void* mutex_holder(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "holder");
  pthread_mutex_lock(&slow);
  pthread_barrier_wait(&held);
  usleep(200 * 1000);
  pthread_mutex_unlock(&slow);
  return NULL;
}

void* mutex_waiter(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "waiter");
  pthread_barrier_wait(&held);
  pthread_mutex_lock(&slow);
  pthread_mutex_unlock(&slow);
  return NULL;
}

void* late_arriver(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "holder");
  usleep(200 * 1000);
  pthread_barrier_wait(&late);
  return NULL;
}

void* barrier_waiter(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "waiter");
  pthread_barrier_wait(&late);
  return NULL;
}

void* spin_holder(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "holder");
  pthread_spin_lock(&spin);
  pthread_barrier_wait(&held);
  busy_for(150);
  pthread_spin_unlock(&spin);
  return NULL;
}

void* spin_waiter(void* arg) {
  (void)arg;
  pthread_setname_np(pthread_self(), "waiter");
  pthread_barrier_wait(&held);
  pthread_spin_lock(&spin);
  pthread_spin_unlock(&spin);
  return NULL;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "mutex";
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&held, NULL, 2);
  pthread_barrier_init(&late, NULL, 2);
  quartz_name_object(&late, "late");
  quartz_name_object(&slow, "slow");
  quartz_name_object(&spin, "spin");
  if (strcmp(mode, "region") == 0) {
    static int flag;
    quartz_name_object(&flag, "flag");
    quartz_spin_begin(&flag);
    busy_for(100);
    quartz_spin_end(&flag);
    return 0;
  }
  void* (*holder)(void*) = mutex_holder;
  void* (*waiter)(void*) = mutex_waiter;
  if (strcmp(mode, "spin") == 0) {
    holder = spin_holder;
    waiter = spin_waiter;
  } else if (strcmp(mode, "barrier") == 0) {
    holder = late_arriver;
    waiter = barrier_waiter;
  }
  pthread_t a, b;
  pthread_create(&a, NULL, holder, NULL);
  pthread_create(&b, NULL, waiter, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
