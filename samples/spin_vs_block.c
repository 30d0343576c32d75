/* spin_vs_block: the same wait, spinning, blocked, and polling.
 *
 * Three phases of R rounds each, T threads each. In a round one thread (the holder) takes the
 * resource, opens the round (barrier "round_start"), computes H ms in use_resource() and
 * releases it; the T - 1 others wait for the resource from the start of the round, then
 * all meet at barrier "round_end".
 *   - spin_phase: the resource is the spin lock "resource_spin"; the waiters wait in
 *     wait_spinning(), inside pthread_spin_lock.
 *   - block_phase: the resource is a flag guarded by the mutex "resource_mutex"; the
 *     waiters wait in wait_blocked(), on the condition "resource_free".
 *   - poll_phase: the resource is an atomic flag; the waiters poll it in wait_polling(),
 *     calling sched_yield between looks (as std::this_thread::yield does).
 * Truth, by construction:
 *   - in spin_phase the waiters are spinning about H ms a round ((T - 1) * R * H in all):
 *     they consume processors (their CPU time matches their wait) but are not busy;
 *   - in block_phase they are blocked as long, and consume no processor;
 *   - in poll_phase they are spinning as long (a thread that polls is not busy);
 *   - the holder is busy R * H ms in each phase, in use_resource; with T <= P each phase
 *     takes about R * H ms (defaults: 0.5 s each); with T > P the spinners take processors
 *     from the holder and spin_phase takes longer.
 * Prints its measured truth: spin_phase_s, block_phase_s (wall times), spin_wait_s,
 * block_wait_s (wall time in the waiting procedures, summed over waiters),
 * spin_wait_cpu_s, block_wait_cpu_s (the waiters' CPU time in them), poll_phase_s,
 * poll_wait_s, elapsed_s.
 *
 *   spin_vs_block [--threads T] [--hold-ms H] [--rounds R]
 *   defaults:      2            25           20
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

#define MAX_THREADS 64

static long threads = 2, hold_ms = 25, rounds = 20;
static pthread_spinlock_t resource_spin;
static pthread_mutex_t resource_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t resource_free = PTHREAD_COND_INITIALIZER;
static int resource_held;   /* guarded by resource_mutex */
static int resource_polled; /* atomic */
static pthread_barrier_t round_start, round_end;
/* Per thread: wall and CPU time spent in the waiting procedure, in s. */
static double wait_s[MAX_THREADS], wait_cpu_s[MAX_THREADS];

/* The holder's work while it has the resource. */
SAMPLE_PROCEDURE void use_resource(void) {
  compute(hold_ms * 1000);
}

SAMPLE_PROCEDURE void wait_spinning(void) {
  pthread_spin_lock(&resource_spin);
  pthread_spin_unlock(&resource_spin);
}

SAMPLE_PROCEDURE void wait_blocked(void) {
  pthread_mutex_lock(&resource_mutex);
  while (resource_held) pthread_cond_wait(&resource_free, &resource_mutex);
  pthread_mutex_unlock(&resource_mutex);
}

SAMPLE_PROCEDURE void wait_polling(void) {
  while (__atomic_load_n(&resource_polled, __ATOMIC_ACQUIRE)) sched_yield();
}

/* Runs `wait` for waiter `i`, adding its wall and CPU time to the waiter's totals. */
SAMPLE_PROCEDURE void timed_wait(long i, void (*wait)(void)) {
  double wall_start = now_us(), cpu_start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  wait();
  wait_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu_start;
  wait_s[i] += (now_us() - wall_start) / 1e6;
}

SAMPLE_PROCEDURE void name_thread(const char* role, long i) {
  char name[16];
  snprintf(name, sizeof name, "%s_%ld", role, i);
  pthread_setname_np(pthread_self(), name);
}

SAMPLE_PROCEDURE void* spin_thread(void* arg) {
  long i = (long)(size_t)arg;
  name_thread(i == 0 ? "spin_holder" : "spin_waiter", i);
  for (long r = 0; r < rounds; r++) {
    /* The holder takes the lock before the round opens, so every waiter finds it held. */
    if (i == 0) pthread_spin_lock(&resource_spin);
    pthread_barrier_wait(&round_start);
    if (i == 0) {
      use_resource();
      pthread_spin_unlock(&resource_spin);
    } else {
      timed_wait(i, wait_spinning);
    }
    pthread_barrier_wait(&round_end);
  }
  return NULL;
}

SAMPLE_PROCEDURE void* block_thread(void* arg) {
  long i = (long)(size_t)arg;
  name_thread(i == 0 ? "block_holder" : "block_waiter", i);
  for (long r = 0; r < rounds; r++) {
    if (i == 0) {
      pthread_mutex_lock(&resource_mutex);
      resource_held = 1;
      pthread_mutex_unlock(&resource_mutex);
    }
    pthread_barrier_wait(&round_start);
    if (i == 0) {
      use_resource();
      pthread_mutex_lock(&resource_mutex);
      resource_held = 0;
      pthread_cond_broadcast(&resource_free);
      pthread_mutex_unlock(&resource_mutex);
    } else {
      timed_wait(i, wait_blocked);
    }
    pthread_barrier_wait(&round_end);
  }
  return NULL;
}

SAMPLE_PROCEDURE void* poll_thread(void* arg) {
  long i = (long)(size_t)arg;
  name_thread(i == 0 ? "poll_holder" : "poll_waiter", i);
  for (long r = 0; r < rounds; r++) {
    if (i == 0) __atomic_store_n(&resource_polled, 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&round_start);
    if (i == 0) {
      use_resource();
      __atomic_store_n(&resource_polled, 0, __ATOMIC_RELEASE);
    } else {
      timed_wait(i, wait_polling);
    }
    pthread_barrier_wait(&round_end);
  }
  return NULL;
}

/* Runs `body` on T threads and returns the phase's wall time in s (and, through the
 * pointers, the waiters' summed wall and CPU time in their waiting procedure). */
SAMPLE_PROCEDURE double run_phase(void* (*body)(void*), double* waited_s, double* waited_cpu_s) {
  for (long t = 0; t < threads; t++) wait_s[t] = wait_cpu_s[t] = 0;
  double start = now_us();
  pthread_t ids[MAX_THREADS];
  for (long t = 0; t < threads; t++) {
    if (pthread_create(&ids[t], NULL, body, (void*)(size_t)t) != 0) {
      fprintf(stderr, "spin_vs_block: cannot create thread %ld\n", t);
      exit(1);
    }
  }
  for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  double phase_s = (now_us() - start) / 1e6;
  *waited_s = *waited_cpu_s = 0;
  for (long t = 0; t < threads; t++) {
    *waited_s += wait_s[t];
    *waited_cpu_s += wait_cpu_s[t];
  }
  return phase_s;
}

SAMPLE_PROCEDURE double spin_phase(double* waited_s, double* waited_cpu_s) {
  return run_phase(spin_thread, waited_s, waited_cpu_s);
}

SAMPLE_PROCEDURE double block_phase(double* waited_s, double* waited_cpu_s) {
  return run_phase(block_thread, waited_s, waited_cpu_s);
}

SAMPLE_PROCEDURE double poll_phase(double* waited_s, double* waited_cpu_s) {
  return run_phase(poll_thread, waited_s, waited_cpu_s);
}

int main(int argc, char** argv) {
  double start = now_us();
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, MAX_THREADS},
      {"--hold-ms", &hold_ms, 0, 100000},
      {"--rounds", &rounds, 1, 1000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  pthread_spin_init(&resource_spin, PTHREAD_PROCESS_PRIVATE);
  pthread_barrier_init(&round_start, NULL, (unsigned)threads);
  pthread_barrier_init(&round_end, NULL, (unsigned)threads);
  quartz_name_object(&resource_spin, "resource_spin");
  quartz_name_object(&resource_mutex, "resource_mutex");
  quartz_name_object(&resource_free, "resource_free");
  quartz_name_object(&round_start, "round_start");
  quartz_name_object(&round_end, "round_end");

  double spin_wait_s, spin_wait_cpu_s, block_wait_s, block_wait_cpu_s;
  double spin_s = spin_phase(&spin_wait_s, &spin_wait_cpu_s);
  double block_s = block_phase(&block_wait_s, &block_wait_cpu_s);
  double poll_wait_s, poll_wait_cpu_s;
  double poll_s = poll_phase(&poll_wait_s, &poll_wait_cpu_s);

  printf("spin_phase_s=%.6f\n", spin_s);
  printf("block_phase_s=%.6f\n", block_s);
  printf("spin_wait_s=%.6f\n", spin_wait_s);
  printf("spin_wait_cpu_s=%.6f\n", spin_wait_cpu_s);
  printf("block_wait_s=%.6f\n", block_wait_s);
  printf("block_wait_cpu_s=%.6f\n", block_wait_cpu_s);
  printf("poll_phase_s=%.6f\n", poll_s);
  printf("poll_wait_s=%.6f\n", poll_wait_s);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
