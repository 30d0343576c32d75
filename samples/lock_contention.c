/* lock_contention: threads that spend most of their time waiting for one lock.
 *
 * Each of T threads repeats I times: compute W microseconds of processor time on its own
 * (do_private_work), then take the lock "work_queue" and compute H microseconds holding it
 * (update_shared_state). Truth, by construction:
 *   - the lock is held T * I * H microseconds in all, one thread at a time, so when
 *     T * H > W + H the lock is the bottleneck: elapsed ~ T * I * H, "work_queue" ranks
 *     first among objects and update_shared_state above do_private_work by normalized
 *     time although both use the same processor time;
 *   - most acquisitions are contended when T * H > W + H.
 *
 *   lock_contention [--threads T] [--iterations I] [--work-us W] [--hold-us H]
 *   defaults:        4            1500             100          100
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

static pthread_mutex_t work_queue = PTHREAD_MUTEX_INITIALIZER;
static long iterations = 1500, work_us = 100, hold_us = 100;

SAMPLE_PROCEDURE void do_private_work(void) {
  compute(work_us);
}

SAMPLE_PROCEDURE void update_shared_state(void) {
  pthread_mutex_lock(&work_queue);
  compute(hold_us);
  pthread_mutex_unlock(&work_queue);
}

SAMPLE_PROCEDURE void* worker(void* arg) {
  (void)arg;
  for (long i = 0; i < iterations; i++) {
    do_private_work();
    update_shared_state();
  }
  return NULL;
}

int main(int argc, char** argv) {
  long threads = 4;
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, 256},
      {"--iterations", &iterations, 1, 100000000},
      {"--work-us", &work_us, 0, 10000000},
      {"--hold-us", &hold_us, 0, 10000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  quartz_name_object(&work_queue, "work_queue");
  pthread_t ids[256];
  double start = now_us();
  for (long t = 0; t < threads; t++) pthread_create(&ids[t], NULL, worker, NULL);
  for (long t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  printf("held_s=%.6f\n", threads * iterations * hold_us / 1e6);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
