/* omp_phases: an OpenMP program (gcc -fopenmp, GNU libgomp) with phases of known cost.
 *
 * A set-up, then three phases, in order:
 *   0. set_up() computes U ms on the main thread before the first parallel region, when
 *      the team's other threads do not exist yet (0 by default);
 *   1. an imbalanced parallel region: team thread i computes (i + 1) * W ms in do_share(),
 *      then waits at the region's end for the slowest;
 *   2. a serial phase: serial_phase() computes S ms on the main thread alone, the team's
 *      other threads idle in libgomp's pool;
 *   3. a parallel region of K steps: in step k thread i computes (i + 1) * B ms in
 *      do_step(), waits at an explicit barrier, then adds its result inside a critical
 *      section (add_result() computes C ms there) and counts it under an omp lock.
 * All costs are processor time (thread CPU clock), so they hold when threads outnumber
 * processors. Truth, by construction, with T threads on P >= T processors:
 *   - phase 1 lasts T * W ms; the threads wait (T - 1 - i) * W ms each at its end,
 *     W T (T - 1) / 2 in all;
 *   - phase 2 lasts S ms with one processor busy;
 *   - at the barrier, each step, thread i waits (T - 1 - i) * B ms: K B T (T - 1) / 2 in all;
 *   - the critical section is held T * K * C ms in all.
 * Prints its measured truth, from omp_get_wtime() and each thread's CPU clock:
 *   setup_s, region_<name>_line (the line of each region's pragma), threads, region_imbalance_s,
 *   region_end_wait_s (the waits at phase 1's end, summed over threads), serial_s,
 *   region_steps_s, barrier_line, barrier_wait_s (the waits in the explicit barrier, summed),
 *   critical_hold_s (time inside the critical section, summed), thread_<i>_work_cpu_s
 *   (processor time thread i spent in its own work: do_share, do_step, add_result),
 *   thread_<i>_cpu_s (its CPU clock at the end: work and libgomp's spinning),
 *   both_working_s (the time every team thread was in its own work at once: phase 1's and
 *   each step's computations overlapped), both_working_lost_s (of that, at most this long
 *   some thread was in its work without a processor: its wall time less its CPU time),
 *   elapsed_s.
 *
 *   omp_phases [--threads T] [--unit-ms W] [--serial-ms S] [--steps K] [--step-ms B]
 *              [--critical-ms C] [--setup-ms U]
 *   defaults:   2             150          300            5           20
 *               5                 0
 */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sample_args.h"
#include "sample_work.h"

#define MAX_THREADS 64

static long unit_ms = 150, serial_ms = 300, steps = 5, step_ms = 20, critical_ms = 5, setup_ms = 0;
static double work_cpu_s[MAX_THREADS], cpu_s[MAX_THREADS], done_at[MAX_THREADS];
static double began_at[MAX_THREADS], lost_s[MAX_THREADS], both_working_s, both_working_lost_s;
static double step_began[2][MAX_THREADS], step_done[2][MAX_THREADS]; /* steps k % 2 */
static double step_lost[2][MAX_THREADS];

/* How long thread i's work of `wall` seconds since `cpu_start` went without a processor. */
static double lost_since(double wall, double cpu_start) {
  double lost = wall - (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu_start);
  return lost > 0 ? lost : 0;
}
static double barrier_wait_s[MAX_THREADS], critical_hold_s;
static long results;
static omp_lock_t results_lock;

/* Each procedure adds the processor time it used to its thread's work total. */
SAMPLE_PROCEDURE void do_share(int i) {
  double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute((i + 1) * unit_ms * 1000);
  work_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

SAMPLE_PROCEDURE void set_up(void) {
  double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute(setup_ms * 1000);
  work_cpu_s[0] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

SAMPLE_PROCEDURE void serial_phase(void) {
  double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute(serial_ms * 1000);
  work_cpu_s[0] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

SAMPLE_PROCEDURE void do_step(int i) {
  double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute((i + 1) * step_ms * 1000);
  work_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

SAMPLE_PROCEDURE void add_result(int i) {
  double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute(critical_ms * 1000);
  work_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

/* How long the threads' intervals [began[i], done[i]] all overlapped. */
static double overlap(const double* began, const double* done, int n) {
  double from = began[0], to = done[0];
  for (int i = 1; i < n; i++) {
    if (began[i] > from) from = began[i];
    if (done[i] < to) to = done[i];
  }
  return to > from ? to - from : 0;
}

int main(int argc, char** argv) {
  double start = omp_get_wtime();
  long threads = 2;
  struct sample_flag flags[] = {
      {"--threads", &threads, 1, MAX_THREADS}, {"--unit-ms", &unit_ms, 0, 100000},
      {"--serial-ms", &serial_ms, 0, 100000},  {"--steps", &steps, 0, 100000},
      {"--step-ms", &step_ms, 0, 100000},      {"--critical-ms", &critical_ms, 0, 100000},
      {"--setup-ms", &setup_ms, 0, 100000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  omp_init_lock(&results_lock);
  int team = 0;

  /* Phase 0: the main thread alone, before the team exists. */
  double phase = omp_get_wtime();
  set_up();
  printf("setup_s=%.6f\n", omp_get_wtime() - phase);

  /* Phase 1: each thread's share, then the region's implicit barrier. */
  printf("region_imbalance_line=%d\n", __LINE__ + 2);
  phase = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    int i = omp_get_thread_num();
    if (i == 0) team = omp_get_num_threads();
    double cpu_start = clock_s(CLOCK_THREAD_CPUTIME_ID);
    began_at[i] = omp_get_wtime();
    do_share(i);
    done_at[i] = omp_get_wtime();
    lost_s[i] = lost_since(done_at[i] - began_at[i], cpu_start);
  }
  double phase_end = omp_get_wtime();
  double end_wait_s = 0;
  for (int i = 0; i < team; i++) end_wait_s += phase_end - done_at[i];
  both_working_s += overlap(began_at, done_at, team);
  for (int i = 0; i < team; i++) both_working_lost_s += lost_s[i];
  printf("threads=%d\n", team);
  printf("region_imbalance_s=%.6f\n", phase_end - phase);
  printf("region_end_wait_s=%.6f\n", end_wait_s);

  /* Phase 2: the main thread alone. */
  phase = omp_get_wtime();
  serial_phase();
  printf("serial_s=%.6f\n", omp_get_wtime() - phase);

  /* Phase 3: steps separated by a barrier, results added under a critical section. */
  printf("region_steps_line=%d\n", __LINE__ + 2);
  phase = omp_get_wtime();
#pragma omp parallel num_threads(threads)
  {
    int i = omp_get_thread_num();
    for (long k = 0; k < steps; k++) {
      double cpu_start = clock_s(CLOCK_THREAD_CPUTIME_ID);
      step_began[k % 2][i] = omp_get_wtime();
      do_step(i);
      double arrived = omp_get_wtime();
      step_done[k % 2][i] = arrived;
      step_lost[k % 2][i] = lost_since(arrived - step_began[k % 2][i], cpu_start);
      enum { barrier_line = __LINE__ + 1 };
#pragma omp barrier
      barrier_wait_s[i] += omp_get_wtime() - arrived;
      /* Read before any thread can pass the next barrier and write step k + 2's times. */
      if (i == 0) {
        both_working_s += overlap(step_began[k % 2], step_done[k % 2], team);
        for (int t = 0; t < team; t++) both_working_lost_s += step_lost[k % 2][t];
      }
      if (i == 0 && k == 0) printf("barrier_line=%d\n", barrier_line);
#pragma omp critical
      {
        double entered = omp_get_wtime();
        add_result(i);
        critical_hold_s += omp_get_wtime() - entered;
      }
      omp_set_lock(&results_lock);
      results++;
      omp_unset_lock(&results_lock);
    }
    cpu_s[i] = clock_s(CLOCK_THREAD_CPUTIME_ID);
  }
  printf("region_steps_s=%.6f\n", omp_get_wtime() - phase);

  double barrier_s = 0;
  for (int i = 0; i < team; i++) barrier_s += barrier_wait_s[i];
  printf("barrier_wait_s=%.6f\n", barrier_s);
  printf("critical_hold_s=%.6f\n", critical_hold_s);
  printf("results=%ld\n", results);
  for (int i = 0; i < team; i++) {
    printf("thread_%d_work_cpu_s=%.6f\n", i, work_cpu_s[i]);
    printf("thread_%d_cpu_s=%.6f\n", i, cpu_s[i]);
  }
  printf("both_working_s=%.6f\n", both_working_s);
  printf("both_working_lost_s=%.6f\n", both_working_lost_s);
  omp_destroy_lock(&results_lock);
  printf("elapsed_s=%.6f\n", omp_get_wtime() - start);
  return 0;
}
