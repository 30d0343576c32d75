/* tbb_phases: the work of omp_phases written with oneTBB, with phases of known cost.
 *
 * Three phases, in order, on T = 2 threads (tbb::global_control), thread 0 the main one and
 * thread 1 TBB's worker:
 *   1. an imbalanced tbb::parallel_invoke of two shares: on thread i a share computes
 *      (i + 1) * W ms in do_share(); the main thread, done first, waits in the invoke;
 *   2. a serial phase: serial_phase() computes S ms on the main thread alone, TBB's worker
 *      idle;
 *   3. K steps, each a parallel_invoke: on thread i a step computes (i + 1) * B ms in
 *      do_step(), then adds its result under a tbb::spin_mutex (add_result() computes C ms
 *      there).
 * oneTBB reports its mutexes to a profiler only when the program is built with
 * TBB_USE_PROFILING_TOOLS (its own switch), as here. All costs are processor time
 * (thread CPU clock). Prints its measured truth, from its wall and CPU clocks:
 *   threads, region_imbalance_s, region_end_wait_s (phase 1: from the main thread's last
 *   share's end to the invoke's end), serial_s, region_steps_s, step_wait_s (the same in
 *   each step, summed), critical_hold_s (time holding the mutex, summed),
 *   thread_<i>_work_cpu_s (processor time thread i spent in its work: do_share, do_step,
 *   add_result), both_working_s (the time both shares were in their work at once),
 *   both_working_lost_s (of that, at most this long some share was in its work without a
 *   processor), elapsed_s.
 *
 *   tbb_phases [--unit-ms W] [--serial-ms S] [--steps K] [--step-ms B] [--critical-ms C]
 *   defaults:   150          300            5           20           5
 */
#define TBB_USE_PROFILING_TOOLS 1
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/spin_mutex.h>
#include <stdio.h>

#include <algorithm>
#include <thread>

#include "sample_args.h"
#include "sample_work.h"

namespace {

long unit_ms = 150, serial_ms = 300, steps = 5, step_ms = 20, critical_ms = 5;
double work_cpu_s[2], critical_hold_s;
tbb::spin_mutex results_mutex;
long results;
std::thread::id main_thread;

// 0 on the main thread, 1 on TBB's worker.
int thread_index() {
  return std::this_thread::get_id() == main_thread ? 0 : 1;
}

double wall_s() {
  return clock_s(CLOCK_MONOTONIC);
}

// One share of an invoke: the thread that ran it, when it began and ended, and how long of
// that it had no processor.
struct Share {
  int thread;
  double began, done, lost;
};

// An invoke of two shares, each `work(thread_index())`: how the shares went.
struct Invoke {
  Share shares[2];
  double end;

  double overlap() const {
    const double from = std::max(shares[0].began, shares[1].began);
    const double to = std::min(shares[0].done, shares[1].done);
    return shares[0].thread != shares[1].thread && to > from ? to - from : 0;
  }
  double lost() const { return shares[0].lost + shares[1].lost; }
  // How long the main thread waited in the invoke: from its last share's end.
  double main_wait() const {
    double last = 0;
    for (const Share& s : shares) {
      if (s.thread == 0) last = std::max(last, s.done);
    }
    return last > 0 ? end - last : 0;
  }
};

template <class Work>
Invoke invoke_shares(Work work) {
  Invoke invoke{};
  auto run = [&](Share& share) {
    const double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
    share.thread = thread_index();
    share.began = wall_s();
    work(share.thread);
    share.done = wall_s();
    const double lost = (share.done - share.began) - (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu);
    share.lost = lost > 0 ? lost : 0;
  };
  tbb::parallel_invoke([&] { run(invoke.shares[0]); }, [&] { run(invoke.shares[1]); });
  invoke.end = wall_s();
  return invoke;
}

}  // namespace

SAMPLE_PROCEDURE void do_share(int i) {
  const double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute((i + 1) * unit_ms * 1000);
  work_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

SAMPLE_PROCEDURE void serial_phase() {
  compute(serial_ms * 1000);
}

SAMPLE_PROCEDURE void do_step(int i) {
  const double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute((i + 1) * step_ms * 1000);
  work_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

SAMPLE_PROCEDURE void add_result(int i) {
  const double start = clock_s(CLOCK_THREAD_CPUTIME_ID);
  compute(critical_ms * 1000);
  work_cpu_s[i] += clock_s(CLOCK_THREAD_CPUTIME_ID) - start;
}

int main(int argc, char** argv) {
  const double start = wall_s();
  struct sample_flag flags[] = {
      {"--unit-ms", &unit_ms, 0, 100000},
      {"--serial-ms", &serial_ms, 0, 100000},
      {"--steps", &steps, 0, 100000},
      {"--step-ms", &step_ms, 0, 100000},
      {"--critical-ms", &critical_ms, 0, 100000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  main_thread = std::this_thread::get_id();
  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, 2);
  double both_working_s = 0, both_working_lost_s = 0;

  /* Phase 1: the two shares; the invoke returns when the longer is done. */
  double phase = wall_s();
  Invoke invoke = invoke_shares(do_share);
  both_working_s += invoke.overlap();
  both_working_lost_s += invoke.lost();
  printf("threads=2\n");
  printf("region_imbalance_s=%.6f\n", invoke.end - phase);
  printf("region_end_wait_s=%.6f\n", invoke.main_wait());

  /* Phase 2: the main thread alone. */
  phase = wall_s();
  serial_phase();
  printf("serial_s=%.6f\n", wall_s() - phase);

  /* Phase 3: steps, results added under the mutex. */
  phase = wall_s();
  double step_wait_s = 0;
  for (long k = 0; k < steps; k++) {
    invoke = invoke_shares([](int i) {
      do_step(i);
      tbb::spin_mutex::scoped_lock hold(results_mutex);
      const double entered = wall_s();
      add_result(i);
      results++;
      critical_hold_s += wall_s() - entered;
    });
    both_working_s += invoke.overlap();
    both_working_lost_s += invoke.lost();
    step_wait_s += invoke.main_wait();
  }
  printf("region_steps_s=%.6f\n", wall_s() - phase);
  printf("step_wait_s=%.6f\n", step_wait_s);
  printf("critical_hold_s=%.6f\n", critical_hold_s);
  printf("results=%ld\n", results);
  for (int i = 0; i < 2; i++) printf("thread_%d_work_cpu_s=%.6f\n", i, work_cpu_s[i]);
  printf("both_working_s=%.6f\n", both_working_s);
  printf("both_working_lost_s=%.6f\n", both_working_lost_s);
  printf("elapsed_s=%.6f\n", wall_s() - start);
  return 0;
}
