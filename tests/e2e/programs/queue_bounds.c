/* queue_bounds: one object of each kind, each used by exactly three threads, all of them at
 * once and beside two threads that only compute, so that every snapshot sees more threads
 * than any object has users. Truth, by construction: at most two of an object's three
 * threads can wait for it at any moment (one holds the lock, signals the condition, posts
 * the semaphore or is the barrier's last arrival), so no object may show a queue of three.
 *
 *   mutex_of_3     three threads lock it, hold it 40 us, compute 10 us
 *   spin_of_3      the same with a spinlock
 *   rwlock_of_3    one writer (held 60 us) and two readers (held 40 us)
 *   cond_of_3      two consumers wait for items, one producer broadcasts them
 *   barrier_of_3   three parties, rounds of unequal work
 *   sem_of_3       two threads wait, one posts
 *
 * Prints elapsed_s. Each group runs for `--ms` milliseconds (default 600).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

#define USERS 3

static double end_us;
static pthread_mutex_t mutex_of_3 = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin_of_3;
static pthread_rwlock_t rwlock_of_3 = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t cond_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond_of_3 = PTHREAD_COND_INITIALIZER;
static long items;
static int producer_done;
static pthread_barrier_t barrier_of_3;
static sem_t sem_of_3;
static volatile int sem_done;

static int running(void) {
  return now_us() < end_us;
}

void* use_mutex(void* arg) {
  (void)arg;
  while (running()) {
    pthread_mutex_lock(&mutex_of_3);
    compute(40);
    pthread_mutex_unlock(&mutex_of_3);
    compute(10);
  }
  return NULL;
}

void* use_spin(void* arg) {
  (void)arg;
  while (running()) {
    pthread_spin_lock(&spin_of_3);
    compute(40);
    pthread_spin_unlock(&spin_of_3);
    compute(10);
  }
  return NULL;
}

void* use_rwlock(void* arg) {
  const int writer = arg != NULL;
  while (running()) {
    if (writer) {
      pthread_rwlock_wrlock(&rwlock_of_3);
      compute(60);
    } else {
      pthread_rwlock_rdlock(&rwlock_of_3);
      compute(40);
    }
    pthread_rwlock_unlock(&rwlock_of_3);
    compute(10);
  }
  return NULL;
}

void* consume(void* arg) {
  (void)arg;
  pthread_mutex_lock(&cond_mutex);
  for (;;) {
    while (items == 0 && !producer_done) pthread_cond_wait(&cond_of_3, &cond_mutex);
    if (items == 0) break;
    --items;
    pthread_mutex_unlock(&cond_mutex);
    compute(30);
    pthread_mutex_lock(&cond_mutex);
  }
  pthread_mutex_unlock(&cond_mutex);
  return NULL;
}

void* produce(void* arg) {
  (void)arg;
  while (running()) {
    compute(80);
    pthread_mutex_lock(&cond_mutex);
    items += 2;
    pthread_cond_broadcast(&cond_of_3);
    pthread_mutex_unlock(&cond_mutex);
  }
  pthread_mutex_lock(&cond_mutex);
  producer_done = 1;
  pthread_cond_broadcast(&cond_of_3);
  pthread_mutex_unlock(&cond_mutex);
  return NULL;
}

void* arrive(void* arg) {
  const long party = (long)arg;
  /* Every party reads the clock once a round, and all agree: party 0 decides. */
  static volatile int stop;
  for (;;) {
    compute(20 + 30 * party);
    if (party == 0 && !running()) stop = 1;
    pthread_barrier_wait(&barrier_of_3);
    const int last = stop;
    pthread_barrier_wait(&barrier_of_3);
    if (last) break;
  }
  return NULL;
}

void* wait_sem(void* arg) {
  (void)arg;
  for (;;) {
    sem_wait(&sem_of_3);
    if (sem_done) break;
    compute(20);
  }
  return NULL;
}

void* post_sem(void* arg) {
  (void)arg;
  while (running()) {
    compute(50);
    sem_post(&sem_of_3);
  }
  sem_done = 1;
  for (int i = 0; i < USERS - 1; ++i) sem_post(&sem_of_3);
  return NULL;
}

void* only_compute(void* arg) {
  (void)arg;
  while (running()) compute(100);
  return NULL;
}

int main(int argc, char** argv) {
  long ms = 600;
  struct sample_flag flags[] = {{"--ms", &ms, 10, 60000}};
  if (!parse_sample_flags(argc, argv, flags, 1)) return 2;
  pthread_spin_init(&spin_of_3, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&barrier_of_3, NULL, USERS);
  sem_init(&sem_of_3, 0, 0);
  quartz_name_object(&mutex_of_3, "mutex_of_3");
  quartz_name_object(&spin_of_3, "spin_of_3");
  quartz_name_object(&rwlock_of_3, "rwlock_of_3");
  quartz_name_object(&cond_of_3, "cond_of_3");
  quartz_name_object(&barrier_of_3, "barrier_of_3");
  quartz_name_object(&sem_of_3, "sem_of_3");

  const double start_us = now_us();
  end_us = start_us + (double)ms * 1000;
  struct {
    void* (*routine)(void*);
    void* arg;
  } threads[] = {
      {use_mutex, NULL},  {use_mutex, NULL},  {use_mutex, NULL},      {use_spin, NULL},
      {use_spin, NULL},   {use_spin, NULL},   {use_rwlock, (void*)1}, {use_rwlock, NULL},
      {use_rwlock, NULL}, {consume, NULL},    {consume, NULL},        {produce, NULL},
      {arrive, (void*)0}, {arrive, (void*)1}, {arrive, (void*)2},     {wait_sem, NULL},
      {wait_sem, NULL},   {post_sem, NULL},   {only_compute, NULL},   {only_compute, NULL},
  };
  enum { kThreads = sizeof threads / sizeof threads[0] };
  pthread_t handles[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    pthread_create(&handles[i], NULL, threads[i].routine, threads[i].arg);
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(handles[i], NULL);
  printf("elapsed_s %.6f\n", (now_us() - start_us) / 1e6);
  return 0;
}
