/* signal_thread: a thread that waits for a signal from its start until main sends it,
 * beside two workers computing: in sigwait() until main's pthread_kill(), as pbzip2's
 * signal handler thread does, or (--suspend 1) in sigsuspend() until main's kill() of its
 * own process, as lbzip2's main thread waits for its muxer. The wait follows main's signal
 * (runtime/interpose_signals.cpp); a replay that did not know it would keep the whole wait
 * as recorded, and the critical path of every prediction would run through it.
 *
 * Prints the waiting thread's time in its wait by its own clock (sigwait_s) and elapsed_s.
 *
 *   signal_thread [--work-ms W] [--suspend 0|1]     defaults: 300 (each worker), 0
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sample_args.h"
#include "sample_work.h"

static long work_ms = 300, suspend;
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

static void on_quit(int signal) {
  (void)signal;
}

static void* signal_waiter(void* arg) {
  (void)arg;
  double start = now_us();
  if (suspend) {
    sigset_t all_but_quit;
    pthread_sigmask(SIG_BLOCK, NULL, &all_but_quit);
    sigdelset(&all_but_quit, SIGUSR1);
    sigsuspend(&all_but_quit); /* returns once on_quit has run */
  } else {
    int caught = 0;
    sigwait(&quit, &caught);
  }
  sigwait_s = (now_us() - start) / 1e6;
  return NULL;
}

int main(int argc, char** argv) {
  double start = now_us();
  struct sample_flag flags[] = {{"--work-ms", &work_ms, 0, 100000}, {"--suspend", &suspend, 0, 1}};
  if (!parse_sample_flags(argc, argv, flags, 2)) return 2;
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_quit;
  sigaction(SIGUSR1, &action, NULL);
  sigemptyset(&quit);
  sigaddset(&quit, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &quit, NULL); /* every thread inherits it */
  pthread_t waiter, workers[2];
  pthread_create(&waiter, NULL, signal_waiter, NULL);
  for (int i = 0; i < 2; ++i) pthread_create(&workers[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(workers[i], NULL);
  if (suspend) {
    kill(getpid(), SIGUSR1); /* to the process: only the waiter does not block it */
  } else {
    pthread_kill(waiter, SIGUSR1);
  }
  pthread_join(waiter, NULL);
  printf("sigwait_s=%.6f\n", sigwait_s);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
