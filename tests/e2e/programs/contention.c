/* Waiting known by construction:
 *   mode "mutex":  `holder` holds lock "slow" for 200 ms; `waiter` blocks on it meanwhile.
 *   mode "spin":   `holder` holds spin lock "spin" for 150 ms; `waiter` spins meanwhile.
 *   mode "region": the main thread busy-waits 100 ms inside a quartz_spin_begin/end region.
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
  int spinning = strcmp(mode, "spin") == 0;
  pthread_t a, b;
  pthread_create(&a, NULL, spinning ? spin_holder : mutex_holder, NULL);
  pthread_create(&b, NULL, spinning ? spin_waiter : mutex_waiter, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  return 0;
}
