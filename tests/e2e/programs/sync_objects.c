/* Every interposed synchronization call with counts known by construction, each checked
 * for its return value and for errno left untouched. Exits non-zero when a wrapper changes
 * behaviour. Objects are named so the test finds them in the runtime's summary:
 *
 *   normal     1000 lock/unlock                          -> 1000 acquisitions
 *   recursive  locked 3 deep, twice                      -> 6
 *   errcheck   lock; relock fails EDEADLK; unlock        -> 1 (+ EPERM on a second unlock)
 *   trylock    one success, one EBUSY (held elsewhere)   -> 1
 *   timed      one success, one ETIMEDOUT                -> 1
 *   rwlock     2 nested reads, 1 write, 1 tryrdlock ok   -> 4
 *   spin       100 lock/unlock                           -> 100
 *   barrier    3 threads x 10 rounds                     -> 30 arrivals, 20 waited
 *   sem        5 posts then 5 waits; one wait that blocks -> 6 acquisitions, 1 contended
 *   cond       100 items handed to a consumer            -> posts >= 100
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "quartz/quartz.h"

#define ERRNO_SENTINEL 4242

static int failures;

/* Runs `call`, expects `expected`, and expects errno untouched. */
#define CHECK(call, expected)                                                                 \
  do {                                                                                        \
    errno = ERRNO_SENTINEL;                                                                   \
    int rc_ = (call);                                                                         \
    if (rc_ != (expected)) {                                                                  \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d\n", __FILE__, __LINE__, #call, rc_, \
              (expected));                                                                    \
      failures++;                                                                             \
    }                                                                                         \
    if (errno != ERRNO_SENTINEL) {                                                            \
      fprintf(stderr, "%s:%d: %s changed errno to %d\n", __FILE__, __LINE__, #call, errno);   \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

/* Runs `call`, which must fail with -1 and set errno to `expected_errno` itself. */
#define CHECK_FAILS_WITH(call, expected_errno)                                                 \
  do {                                                                                         \
    errno = ERRNO_SENTINEL;                                                                    \
    int rc_ = (call);                                                                          \
    if (rc_ != -1 || errno != (expected_errno)) {                                              \
      fprintf(stderr, "%s:%d: %s gave %d, errno %d\n", __FILE__, __LINE__, #call, rc_, errno); \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

static pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive, errcheck;
static pthread_mutex_t trylock_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t timed = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rwlock = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_barrier_t barrier;
static sem_t sem;
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_cond = PTHREAD_COND_INITIALIZER;
static int queue_items, consumed;

static void deadline_in(struct timespec* ts, long ms) {
  clock_gettime(CLOCK_REALTIME, ts);
  ts->tv_nsec += ms * 1000000L;
  ts->tv_sec += ts->tv_nsec / 1000000000L;
  ts->tv_nsec %= 1000000000L;
}

static void* hold_trylock_and_timed(void* arg) {
  pthread_barrier_t* ready = arg;
  CHECK(pthread_mutex_lock(&trylock_m), 0);
  CHECK(pthread_mutex_lock(&timed), 0);
  pthread_barrier_wait(ready); /* main tries while we hold both */
  pthread_barrier_wait(ready);
  CHECK(pthread_mutex_unlock(&trylock_m), 0);
  CHECK(pthread_mutex_unlock(&timed), 0);
  return NULL;
}

static void* barrier_worker(void* arg) {
  (void)arg;
  for (int round = 0; round < 10; round++) {
    errno = ERRNO_SENTINEL;
    int rc = pthread_barrier_wait(&barrier);
    if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD) failures++;
    if (errno != ERRNO_SENTINEL) failures++;
  }
  return NULL;
}

static void* late_poster(void* arg) {
  (void)arg;
  usleep(50 * 1000);
  CHECK(sem_post(&sem), 0);
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  CHECK(pthread_mutex_lock(&queue_lock), 0);
  while (consumed < 100) {
    while (queue_items == 0) CHECK(pthread_cond_wait(&queue_cond, &queue_lock), 0);
    queue_items--;
    consumed++;
  }
  CHECK(pthread_mutex_unlock(&queue_lock), 0);
  return NULL;
}

void exercise_mutexes(void) {
  for (int i = 0; i < 1000; i++) {
    CHECK(pthread_mutex_lock(&normal), 0);
    CHECK(pthread_mutex_unlock(&normal), 0);
  }
  for (int round = 0; round < 2; round++) {
    for (int i = 0; i < 3; i++) CHECK(pthread_mutex_lock(&recursive), 0);
    for (int i = 0; i < 3; i++) CHECK(pthread_mutex_unlock(&recursive), 0);
  }
  CHECK(pthread_mutex_lock(&errcheck), 0);
  CHECK(pthread_mutex_lock(&errcheck), EDEADLK);
  CHECK(pthread_mutex_unlock(&errcheck), 0);
  CHECK(pthread_mutex_unlock(&errcheck), EPERM);

  pthread_barrier_t ready;
  pthread_barrier_init(&ready, NULL, 2);
  pthread_t holder;
  CHECK(pthread_create(&holder, NULL, hold_trylock_and_timed, &ready), 0);
  pthread_barrier_wait(&ready);
  CHECK(pthread_mutex_trylock(&trylock_m), EBUSY);
  struct timespec deadline;
  deadline_in(&deadline, 20);
  CHECK(pthread_mutex_timedlock(&timed, &deadline), ETIMEDOUT);
  pthread_barrier_wait(&ready);
  CHECK(pthread_join(holder, NULL), 0);
  CHECK(pthread_mutex_trylock(&trylock_m), 0);
  CHECK(pthread_mutex_unlock(&trylock_m), 0);
  deadline_in(&deadline, 1000);
  CHECK(pthread_mutex_timedlock(&timed, &deadline), 0);
  CHECK(pthread_mutex_unlock(&timed), 0);
  pthread_barrier_destroy(&ready);
}

void exercise_rwlock_and_spin(void) {
  CHECK(pthread_rwlock_rdlock(&rwlock), 0);
  CHECK(pthread_rwlock_rdlock(&rwlock), 0);
  CHECK(pthread_rwlock_trywrlock(&rwlock), EBUSY);
  CHECK(pthread_rwlock_unlock(&rwlock), 0);
  CHECK(pthread_rwlock_unlock(&rwlock), 0);
  CHECK(pthread_rwlock_wrlock(&rwlock), 0);
  CHECK(pthread_rwlock_unlock(&rwlock), 0);
  CHECK(pthread_rwlock_tryrdlock(&rwlock), 0);
  CHECK(pthread_rwlock_unlock(&rwlock), 0);
  for (int i = 0; i < 100; i++) {
    CHECK(pthread_spin_lock(&spin), 0);
    CHECK(pthread_spin_unlock(&spin), 0);
  }
}

void exercise_barrier(void) {
  pthread_t workers[2];
  for (int i = 0; i < 2; i++) CHECK(pthread_create(&workers[i], NULL, barrier_worker, NULL), 0);
  barrier_worker(NULL);
  for (int i = 0; i < 2; i++) CHECK(pthread_join(workers[i], NULL), 0);
}

void exercise_semaphore(void) {
  for (int i = 0; i < 5; i++) CHECK(sem_post(&sem), 0);
  for (int i = 0; i < 5; i++) CHECK(sem_wait(&sem), 0);
  CHECK_FAILS_WITH(sem_trywait(&sem), EAGAIN);
  pthread_t poster;
  CHECK(pthread_create(&poster, NULL, late_poster, NULL), 0);
  CHECK(sem_wait(&sem), 0); /* blocks until the post; the fast path's EAGAIN must not show */
  CHECK(pthread_join(poster, NULL), 0);
}

void exercise_condition(void) {
  pthread_t c;
  CHECK(pthread_create(&c, NULL, consumer, NULL), 0);
  for (int i = 0; i < 100; i++) {
    CHECK(pthread_mutex_lock(&queue_lock), 0);
    queue_items++;
    CHECK(pthread_cond_signal(&queue_cond), 0);
    CHECK(pthread_mutex_unlock(&queue_lock), 0);
    if (i % 10 == 0) usleep(1000); /* let the consumer wait sometimes */
  }
  CHECK(pthread_join(c, NULL), 0);
  CHECK(pthread_cond_broadcast(&queue_cond), 0);
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&recursive, &attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&errcheck, &attr);
  pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&barrier, NULL, 3);
  sem_init(&sem, 0, 0);

  quartz_name_object(&normal, "normal");
  quartz_name_object(&recursive, "recursive");
  quartz_name_object(&errcheck, "errcheck");
  quartz_name_object(&trylock_m, "trylock");
  quartz_name_object(&timed, "timed");
  quartz_name_object(&rwlock, "rwlock");
  quartz_name_object(&spin, "spin");
  quartz_name_object(&barrier, "barrier");
  quartz_name_object(&sem, "sem");
  quartz_name_object(&queue_lock, "queue_lock");
  quartz_name_object(&queue_cond, "queue_cond");

  exercise_mutexes();
  exercise_rwlock_and_spin();
  exercise_barrier();
  exercise_semaphore();
  exercise_condition();
  printf("failures=%d\n", failures);
  return failures == 0 ? 0 : 1;
}
