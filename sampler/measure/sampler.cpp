#include "sampler/measure/sampler.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <new>

#include "runtime/real.h"
#include "runtime/runtime.h"
#include "runtime/trace_events.h"
#include "sampler/measure/period.h"
#include "sampler/measure/placement.h"
#include "sampler/measure/snapshots.h"
#include "sampler/publish/publisher.h"
#include "support/clock.h"
#include "support/thread_cpu.h"

namespace quartz::sampler {
namespace {

// Snapshots on one processor before the next, when the sampler shares them
// (placement.h): each program thread pays alike over 50 ms. A move is a migration the
// kernel makes through the target processor (~100 us of the sampler's processor time).
constexpr uint64_t kSnapshotsPerTurn = 25;

struct Sampler {
  rt::Runtime* runtime = nullptr;
  OverheadControl* overhead = nullptr;
  pthread_t thread{};
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> ready{false};     // start() waits for it (sampler_main)
  std::atomic<bool> released{false};  // and then starts the run's clock (sampler_main waits)

  RunInfo info;
  Snapshots snapshots;
  Publisher publisher;
  SharedProcessors turns;
  Schedule schedule;
};

alignas(Sampler) unsigned char g_storage[sizeof(Sampler)];
Sampler* g_sampler = nullptr;  // never destroyed (STYLE 3)
// In a forked child of a sampled process, what the child's capture of its counts takes from
// the parent's run: P (0: not such a child) and the run's start, from which thread times
// count.
struct ForkedChild {
  uint32_t processors;
  uint64_t start_realtime_ns;
};
ForkedChild g_forked_child{};
// A forked child's overhead control: none (the parent's figures are the parent's).
OverheadControl g_no_overhead_control;

QUARTZ_NOINSTR uint64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

QUARTZ_NOINSTR void read_program(RunInfo& info) {
  const ssize_t n = readlink("/proc/self/exe", info.program, sizeof(info.program) - 1);
  info.program[n > 0 ? n : 0] = '\0';
  const int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  ssize_t used = 0;
  if (fd >= 0) {
    used = read(fd, info.arguments, sizeof(info.arguments) - 1);
    close(fd);
  }
  if (used < 0) used = 0;
  info.arguments[used] = '\0';
  for (ssize_t i = 0; i + 1 < used; ++i) {
    if (info.arguments[i] == '\0') info.arguments[i] = '\x1f';
  }
  gethostname(info.host, sizeof(info.host) - 1);
  info.pid = getpid();
}

// Snapshots on time among many runnable threads: at real-time priority (the lowest,
// SCHED_FIFO 1) a wake-up runs at once, where a fair share of 1,000 threads' run queue took
// one snapshot in 16. Safe because a snapshot's walk is held to 4% of the period and the
// other work to budgets of its own (period.h); the final capture, which can take long, is written
// at normal priority (lower_priority). Refused without CAP_SYS_NICE or RLIMIT_RTPRIO: said in the
// run.
QUARTZ_NOINSTR const char* raise_priority(const rt::Options& options) {
  if (!options.realtime_sampler) return capture::run_keys::kPriorityNormal;
  sched_param param{};
  param.sched_priority = 1;
  return pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0
             ? capture::run_keys::kPriorityRealtime
             : capture::run_keys::kPriorityRefused;
}

QUARTZ_NOINSTR void lower_priority() {
  sched_param param{};
  pthread_setschedparam(pthread_self(), SCHED_OTHER, &param);
}

QUARTZ_NOINSTR void note_schedule(RunInfo& info, const Schedule& schedule) {
  info.period_longest_ns = schedule.longest_period_ns();
  info.snapshots_due = schedule.due();
  info.snapshots_late = schedule.late();
  info.snapshots_lost = schedule.lost();
}

// Run information known before the first snapshot.
QUARTZ_NOINSTR void begin_run_info(RunInfo& info, const rt::Runtime& runtime) {
  memset(&info, 0, sizeof info);
  read_program(info);
  info.start_realtime_ns = realtime_ns();
  info.start_monotonic_ns = runtime.clock.start_ns;
  support::ThreadCpu probe;
  info.cpu_measured = support::read_thread_cpu(gettid(), &probe);
}

// A forked child's capture: its counts, with no samples (the sampler thread stayed in the
// parent). Its own storage: what the parent's sampler left in this memory is the parent's.
QUARTZ_NOINSTR void write_forked_child_capture(rt::Runtime& runtime, const ForkedChild& child) {
  Sampler* s = new (g_storage) Sampler();
  s->runtime = &runtime;
  begin_run_info(s->info, runtime);
  s->info.start_realtime_ns = child.start_realtime_ns;
  Snapshots& snaps = s->snapshots;
  if (!snaps.init_tables(child.processors) ||
      !s->publisher.init(
          runtime, s->info, g_no_overhead_control,
          SampledProfile{&snaps.tables, &snaps.window, &snaps.config, &snaps.totals})) {
    return;
  }
  runtime.threads.attach_reader();
  s->publisher.write_final();
  runtime.threads.detach_reader();
}

QUARTZ_NOINSTR void retire_deferred(void* snapshots) {
  static_cast<Snapshots*>(snapshots)->retire_deferred();
}

// Placement, storage and calibration, on the sampler thread (hwloc binds the calling
// thread and allocates; this thread is ours).
QUARTZ_NOINSTR bool prepare(Sampler& s) {
  const rt::Options& options = s.runtime->options;
  const uint32_t processors = place_sampler(options, s.info, s.turns);
  // Finer sampling perturbs a program the sampler shares processors with (1 ms distorts
  // the histogram by ~2 points); on a core of its own 1 ms costs the program nothing.
  const uint32_t period_us = options.period_us ? options.period_us : s.info.reserve ? 1000 : 2000;
  s.info.period_ns = uint64_t{period_us} * 1000;
  Snapshots& snaps = s.snapshots;
  if (!snaps.init(*s.runtime, s.info, *s.overhead, s.publisher.trace(), processors) ||
      !s.publisher.init(
          *s.runtime, s.info, *s.overhead,
          SampledProfile{&snaps.tables, &snaps.window, &snaps.config, &snaps.totals})) {
    return false;
  }
  s.publisher.start_builder(s.turns, retire_deferred, &snaps);
  return true;
}

QUARTZ_NOINSTR void* sampler_main(void*) {
  rt::mark_runtime_thread();
  // Sleeps end within a microsecond, not the default 50 us: snapshots keep their period and
  // a window's reads their gaps.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  Sampler& s = *g_sampler;
  const rt::Options& options = s.runtime->options;
  // The cost of an instrumented call, measured first, while the program waits (start):
  // beside the program's own threads it would read twice what they pay.
  s.info.hook_pair_ns = s.overhead->calibrate_call_ns(options.geometry);
  // Then the files the sampler starts with (the shared capture's region, the topology, the
  // machine's load), opened and closed while the program still waits: one starting by
  // listing its descriptors would see ours.
  const bool prepared = prepare(s);
  s.ready.store(true, std::memory_order_release);
  if (!prepared) {
    s.runtime->exit_cpu_wanted.store(false, std::memory_order_release);
    s.runtime->threads.detach_reader();
    return nullptr;
  }
  // The run's clock starts when the program is released (start).
  while (!s.released.load(std::memory_order_acquire)) sched_yield();
  const uint64_t period_ns = s.info.period_ns;
  const uint64_t checkpoint_ns = uint64_t{options.checkpoint_ms} * 1000000;
  // The budget turns patched entries off; with the compiler's hooks it has nothing to do.
  const bool patched = s.runtime->patched_entries != 0;
  s.info.budget_percent = patched ? options.budget_percent : 0;
  s.info.decisions = s.overhead->start_budget(s.info.budget_percent, s.info.hook_pair_ns, period_ns,
                                              ProfileTables::Limits{}.contexts);
  s.info.windows_known = s.overhead->keeps_windows();
  Snapshots& snaps = s.snapshots;
  snaps.config.hook_event_ns = s.info.hook_pair_ns / 2;
  if (options.trace) {
    const double ns_per_tick = s.runtime->clock.ns_per_tick();
    rt::g_trace_cpu_interval_ticks =
        static_cast<uint64_t>(options.trace_cpu_us * 1000.0 / (ns_per_tick > 0 ? ns_per_tick : 1));
    s.info.trace_event_ns = s.overhead->calibrate_trace_event_ns(options.geometry);
    s.info.trace_cpu_read_ns = s.overhead->calibrate_cpu_read_ns();
    s.info.trace =
        s.publisher.trace().open(options.output, s.runtime->clock.start_ticks, ns_per_tick);
  }

  s.info.sampler_priority = raise_priority(options);
  uint64_t now = support::monotonic_ns();
  // The first snapshot covers the run from its start: the program runs while the sampler
  // calibrates and opens its trace, so that is part of the program's elapsed time.
  snaps.begin(s.runtime->clock.start_ns, now);
  s.publisher.begin(now);
  s.schedule.start(period_ns, now);
  while (!s.stop_requested.load(std::memory_order_acquire)) {
    const uint64_t due = s.schedule.due_ns();
    const bool window = snaps.open_entry_window(due);
    support::sleep_until_ns(due);
    now = support::monotonic_ns();
    const uint64_t cost_from = support::read_own_clock();
    snaps.take(snaps.snapshot_time(now), false, window, s.publisher.builder_idle());
    // The walk over the threads: what the period pays for (period.h).
    const uint64_t walk_ns = support::read_own_clock() - cost_from - snaps.close_cost_ns();
    s.publisher.builder_free();  // what the builder did, and the threads it kept from retiring
    if (window) s.overhead->close_window(snaps.tables, &snaps.config.hidden);
    // The sampler is the registry's attached reader for the whole run.
    s.overhead->after_snapshot(now - s.runtime->clock.start_ns);
    if (snaps.count() % kSnapshotsPerTurn == 0) take_next_turn(s.turns);
    // Every thread has ended, the main thread through pthread_exit: the process ends when
    // its last thread does, and that would be this one. Write the end and let it end.
    if (snaps.live_threads() == 0 && !s.runtime->threads.any_thread_running()) break;
    s.publisher.after_snapshot(now, snaps.count(), checkpoint_ns);
    s.schedule.taken(now, walk_ns, support::monotonic_ns());
    s.info.walk_ns += walk_ns;
    note_schedule(s.info, s.schedule);
  }
  lower_priority();
  s.publisher.stop_builder();
  s.overhead->stop();
  snaps.take(snaps.snapshot_time(support::monotonic_ns()), /*last=*/true, false, true);
  snaps.close_window(/*last=*/true);
  s.publisher.write_final();
  s.runtime->threads.detach_reader();
  return nullptr;
}

}  // namespace

bool start(rt::Runtime& runtime, OverheadControl& overhead) {
  if (g_sampler || !rt::real::pthread_create) return false;
  Sampler* s = new (g_storage) Sampler();
  s->runtime = &runtime;
  s->overhead = &overhead;
  begin_run_info(s->info, runtime);
  g_sampler = s;
  runtime.threads.attach_reader();
  // From now on threads that end leave their clocks: the sampler counts them all, even
  // those that end before its first snapshot.
  runtime.exit_cpu_wanted.store(true, std::memory_order_release);
  // The sampler starts with every signal blocked (a new thread inherits the mask): a signal
  // sent to the process must go to a thread of the program (one that sigwait()s for it, or
  // a profiling timer's handler that must run where the program expects), never run on
  // ours or kill the process through our default action.
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  const int created = rt::real::pthread_create(&s->thread, nullptr, sampler_main, nullptr);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (created != 0) {
    runtime.exit_cpu_wanted.store(false, std::memory_order_release);
    runtime.threads.detach_reader();
    g_sampler = nullptr;
    return false;
  }
  // The program starts once the calls' cost is measured and the sampler has done with the
  // files it starts with (a few ms; never more than 50).
  const uint64_t give_up = support::monotonic_ns() + 50'000'000;
  while (!s->ready.load(std::memory_order_acquire) && support::monotonic_ns() < give_up) {
    const timespec pause{0, 100'000};
    nanosleep(&pause, nullptr);
  }
  // The run starts now: the program's elapsed time does not include the wait, nor the
  // patching of entries before it (2-3 ms).
  rt::restart_run_clock();
  s->info.start_realtime_ns = realtime_ns();
  s->info.start_monotonic_ns = runtime.clock.start_ns;
  s->released.store(true, std::memory_order_release);
  return true;
}

void stop(uint64_t wait_ns) {
  if (g_forked_child.processors) {
    const ForkedChild child = g_forked_child;
    g_forked_child = ForkedChild{};
    write_forked_child_capture(rt::runtime(), child);
    return;
  }
  Sampler* s = g_sampler;
  if (!s || s->stop_requested.exchange(true)) return;
  if (wait_ns == 0 || !rt::real::pthread_timedjoin_np) {
    rt::real::pthread_join(s->thread, nullptr);
  } else {
    timespec deadline{};
    clock_gettime(CLOCK_REALTIME, &deadline);
    const uint64_t until = static_cast<uint64_t>(deadline.tv_nsec) + wait_ns;
    deadline.tv_sec += static_cast<time_t>(until / 1'000'000'000);
    deadline.tv_nsec = static_cast<long>(until % 1'000'000'000);
    if (rt::real::pthread_timedjoin_np(s->thread, nullptr, &deadline) != 0) return;
  }
  s->runtime->exit_cpu_wanted.store(false, std::memory_order_release);
}

void forget_after_fork() {
  if (g_sampler) {
    const uint32_t processors = g_sampler->snapshots.config.processors;
    g_forked_child = ForkedChild{processors ? processors : 1, g_sampler->info.start_realtime_ns};
  }
  g_sampler = nullptr;
}

}  // namespace quartz::sampler
