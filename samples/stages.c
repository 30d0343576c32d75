/* stages: a two-stage pipeline too short for its start-up and wind-down (the Quartz paper's
 * "starvation due to a small problem size": later stages start late, earlier ones end well
 * before the program does).
 *
 * main starts the thread "loader" and joins it, then the solver. The loader runs
 * load_input() for W ms of wall time; L ms in, its first chunk is ready and it starts the
 * thread "solver", which runs solve() for W ms of wall time. Both compute all the time they
 * work, so their phases last what the wall clock says even when other processes take
 * processors from them. Truth, by construction, with the defaults on 2 processors:
 *   - for the first L ms only the loader exists to work, for the last L ms only the
 *     solver: one processor has no thread to run for 2 L ms (0.6 s) of the elapsed L + W
 *     (0.9 s), a third of the processors' time; in between both work;
 *   - the two threads do the same work (W ms each) in different procedures: no load
 *     imbalance, and nothing waits for a lock.
 * Prints its measured truth, in seconds since main started, for each thread (loader,
 * solver): <t>_created_s (just before its creator called pthread_create), <t>_start_s and
 * <t>_end_s (its own first and last instant of work), <t>_joined_s (when main's join of it
 * returned); and elapsed_s. A thread exists from between created and start to between end
 * and joined: close together on a quiet machine, a scheduling delay apart on a busy one.
 *
 *   stages [--lead-ms L] [--work-ms W]
 *   defaults: 300         600
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "sample_args.h"
#include "sample_work.h"

static long lead_ms = 300, work_ms = 600;
static double start_us;
static double loader_created_us, loader_start_us, loader_end_us, loader_joined_us;
static double solver_created_us, solver_start_us, solver_end_us, solver_joined_us;
static pthread_t solver_thread;
static int solver_started;

/* Computes until the wall clock reaches `end_us`. */
SAMPLE_UNINSTRUMENTED static void work_until(double end_us) {
  double x = 1.0;
  while (now_us() < end_us) {
    for (int i = 0; i < 1000; i++) x = x * 1.0000001 + 1e-9;
  }
  sample_work_sink = x;
}

/* The second stage: starts on the first chunk. */
SAMPLE_PROCEDURE void solve(void) {
  solver_start_us = now_us();
  work_until(solver_start_us + (double)work_ms * 1000);
  solver_end_us = now_us();
}

SAMPLE_PROCEDURE void* solver(void* arg) {
  pthread_setname_np(pthread_self(), "solver");
  solve();
  return arg;
}

/* The first stage: its first chunk is ready L ms in, and the solver starts on it. */
SAMPLE_PROCEDURE void load_input(void) {
  loader_start_us = now_us();
  work_until(loader_start_us + (double)lead_ms * 1000);
  solver_created_us = now_us();
  solver_started = pthread_create(&solver_thread, NULL, solver, NULL) == 0;
  work_until(loader_start_us + (double)work_ms * 1000);
  loader_end_us = now_us();
}

SAMPLE_PROCEDURE void* loader(void* arg) {
  pthread_setname_np(pthread_self(), "loader");
  load_input();
  return arg;
}

int main(int argc, char** argv) {
  start_us = now_us();
  struct sample_flag flags[] = {
      {"--lead-ms", &lead_ms, 0, 100000},
      {"--work-ms", &work_ms, 0, 100000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  if (lead_ms > work_ms) {
    fprintf(stderr, "stages: the lead (%ld ms) must not exceed the work (%ld ms)\n", lead_ms,
            work_ms);
    return 2;
  }
  pthread_t loader_thread;
  loader_created_us = now_us();
  if (pthread_create(&loader_thread, NULL, loader, NULL) != 0) {
    fprintf(stderr, "stages: cannot create the loader\n");
    return 1;
  }
  pthread_join(loader_thread, NULL);
  loader_joined_us = now_us();
  if (!solver_started) {
    fprintf(stderr, "stages: cannot create the solver\n");
    return 1;
  }
  pthread_join(solver_thread, NULL);
  solver_joined_us = now_us();
  const char* names[] = {"loader", "solver"};
  const double times[2][4] = {
      {loader_created_us, loader_start_us, loader_end_us, loader_joined_us},
      {solver_created_us, solver_start_us, solver_end_us, solver_joined_us}};
  for (int t = 0; t < 2; t++) {
    printf("%s_created_s=%.6f\n", names[t], (times[t][0] - start_us) / 1e6);
    printf("%s_start_s=%.6f\n", names[t], (times[t][1] - start_us) / 1e6);
    printf("%s_end_s=%.6f\n", names[t], (times[t][2] - start_us) / 1e6);
    printf("%s_joined_s=%.6f\n", names[t], (times[t][3] - start_us) / 1e6);
  }
  printf("elapsed_s=%.6f\n", (now_us() - start_us) / 1e6);
  return 0;
}
