/* pairs: threads that hand a token back and forth in pairs, so where they run decides the
 * elapsed time (the sample for `quartz predict --group/--cores` and `quartz run
 * --placement`).
 *
 * P pairs; in pair i, thread "ping_<i>" computes X microseconds of processor time
 * (ping_work) and hands the token to "pong_<i>" (a mutex "pair_<i>" with a condition
 * "pair_<i>.turn"), which computes Y microseconds (pong_work) and hands it back; N rounds.
 * Truth, by construction:
 *   - the two threads of a pair never run at once: a pair needs one processor, and alone
 *     takes N (X + Y) (defaults: 400 * 1.5 ms = 0.6 s);
 *   - P pairs on K processors, each pair's threads together: about ceil(P / K) N (X + Y);
 *   - partners apart and two pairs' threads sharing each processor: both threads of a
 *     processor run at the same time and share it, so each half-round takes twice as
 *     long: about 2 N (X + Y) for P = K = 2 (the worst grouping, 1.2 s by default).
 * Prints its measured truth: pair_<i>_s (wall time of pair i), threads_cpu_s (the pairs'
 * threads' CPU clocks at their ends, summed), threads_ready_s (the time the kernel kept them
 * runnable but not running, from each one's schedstat at its end, summed; -1 where the
 * kernel does not keep it), elapsed_s.
 *
 *   pairs [--pairs P] [--rounds N] [--ping-us X] [--pong-us Y]
 *   defaults: 2      400          750          750
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

#define MAX_PAIRS 32

static long pairs = 2, rounds = 400, ping_us = 750, pong_us = 750;

struct pair {
  pthread_mutex_t lock;
  pthread_cond_t turn;
  int pong_turn; /* 1: pong holds the token */
  double seconds;
  double ping_cpu_s, pong_cpu_s;     /* their CPU clocks at their ends */
  double ping_ready_s, pong_ready_s; /* their run-queue time at their ends */
  char lock_name[32], turn_name[32];
};

static struct pair all[MAX_PAIRS];

/* The calling thread's time runnable but not running, from the kernel; -1 if unknown. */
static double ready_s(void) {
  FILE* f = fopen("/proc/thread-self/schedstat", "r");
  unsigned long long running_ns = 0, waiting_ns = 0;
  const int read = f ? fscanf(f, "%llu %llu", &running_ns, &waiting_ns) : 0;
  if (f) fclose(f);
  return read == 2 ? waiting_ns / 1e9 : -1;
}

SAMPLE_PROCEDURE void ping_work(void) {
  compute(ping_us);
}
SAMPLE_PROCEDURE void pong_work(void) {
  compute(pong_us);
}

SAMPLE_PROCEDURE static void wait_for_turn(struct pair* p, int pong) {
  pthread_mutex_lock(&p->lock);
  while (p->pong_turn != pong) pthread_cond_wait(&p->turn, &p->lock);
  pthread_mutex_unlock(&p->lock);
}

SAMPLE_PROCEDURE static void pass_token(struct pair* p, int to_pong) {
  pthread_mutex_lock(&p->lock);
  p->pong_turn = to_pong;
  pthread_cond_signal(&p->turn);
  pthread_mutex_unlock(&p->lock);
}

SAMPLE_PROCEDURE void* ping(void* arg) {
  struct pair* p = arg;
  char name[16];
  snprintf(name, sizeof name, "ping_%d", (int)(p - all));
  pthread_setname_np(pthread_self(), name);
  double start = now_us();
  for (long r = 0; r < rounds; r++) {
    wait_for_turn(p, 0);
    ping_work();
    pass_token(p, 1);
  }
  wait_for_turn(p, 0);
  p->seconds = (now_us() - start) / 1e6;
  p->ping_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
  p->ping_ready_s = ready_s();
  return NULL;
}

SAMPLE_PROCEDURE void* pong(void* arg) {
  struct pair* p = arg;
  char name[16];
  snprintf(name, sizeof name, "pong_%d", (int)(p - all));
  pthread_setname_np(pthread_self(), name);
  for (long r = 0; r < rounds; r++) {
    wait_for_turn(p, 1);
    pong_work();
    pass_token(p, 0);
  }
  p->pong_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
  p->pong_ready_s = ready_s();
  return NULL;
}

int main(int argc, char** argv) {
  struct sample_flag flags[] = {
      {"--pairs", &pairs, 1, MAX_PAIRS},
      {"--rounds", &rounds, 0, 100000000},
      {"--ping-us", &ping_us, 0, 10000000},
      {"--pong-us", &pong_us, 0, 10000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  double start = now_us();
  pthread_t threads[2 * MAX_PAIRS];
  for (long i = 0; i < pairs; i++) {
    struct pair* p = &all[i];
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->turn, NULL);
    snprintf(p->lock_name, sizeof p->lock_name, "pair_%ld", i);
    snprintf(p->turn_name, sizeof p->turn_name, "pair_%ld.turn", i);
    quartz_name_object(&p->lock, p->lock_name);
    quartz_name_object(&p->turn, p->turn_name);
  }
  /* Created in pair order: ping_i is thread 2i + 1, pong_i thread 2i + 2. */
  for (long i = 0; i < pairs; i++) {
    pthread_create(&threads[2 * i], NULL, ping, &all[i]);
    pthread_create(&threads[2 * i + 1], NULL, pong, &all[i]);
  }
  for (long i = 0; i < 2 * pairs; i++) pthread_join(threads[i], NULL);
  double threads_cpu_s = 0, threads_ready_s = 0;
  for (long i = 0; i < pairs; i++) {
    printf("pair_%ld_s=%.6f\n", i, all[i].seconds);
    threads_cpu_s += all[i].ping_cpu_s + all[i].pong_cpu_s;
    if (threads_ready_s >= 0 && all[i].ping_ready_s >= 0 && all[i].pong_ready_s >= 0) {
      threads_ready_s += all[i].ping_ready_s + all[i].pong_ready_s;
    } else {
      threads_ready_s = -1;
    }
  }
  printf("threads_cpu_s=%.6f\n", threads_cpu_s);
  printf("threads_ready_s=%.6f\n", threads_ready_s);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
