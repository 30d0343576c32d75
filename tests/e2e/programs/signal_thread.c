/* signal_thread: a thread that waits in sigwait() from its start until main ends it with
 * pthread_kill(), as pbzip2's signal handler thread does, beside two workers computing.
 * The wait follows main's pthread_kill (runtime/interpose_signals.cpp); a replay that did
 * not know it would keep the whole wait as recorded, and the critical path of every
 * prediction would run through it.
 *
 * Prints the waiting thread's time in sigwait by its own clock (sigwait_s) and elapsed_s.
 *
 *   signal_thread [--work-ms W]     default 300 (each worker)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "sample_args.h"
#include "sample_work.h"

static long work_ms = 300;
static double sigwait_s;
static sigset_t quit;

SAMPLE_PROCEDURE void crunch(void) {
  compute(work_ms * 1000);
}

static void* worker(void* arg) {
  (void)arg;
  crunch();
  return NULL;
}

static void* signal_waiter(void* arg) {
  (void)arg;
  double start = now_us();
  int caught = 0;
  sigwait(&quit, &caught);
  sigwait_s = (now_us() - start) / 1e6;
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  struct sample_flag flags[] = {{"--work-ms", &work_ms, 0, 100000}};
  if (!parse_sample_flags(argc, argv, flags, 1)) return 2;
  sigemptyset(&quit);
  sigaddset(&quit, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &quit, NULL); /* every thread inherits it */
  pthread_t waiter, workers[2];
  pthread_create(&waiter, NULL, signal_waiter, NULL);
  for (int i = 0; i < 2; ++i) pthread_create(&workers[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(workers[i], NULL);
  pthread_kill(waiter, SIGUSR1);
  pthread_join(waiter, NULL);
  printf("sigwait_s=%.6f\n", sigwait_s);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
