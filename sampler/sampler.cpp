#include "sampler/sampler.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <new>

#include "runtime/real.h"
#include "runtime/return_stack.h"
#include "runtime/run_status.h"
#include "runtime/runtime.h"
#include "runtime/trace_events.h"
#include "sampler/amendment_log.h"
#include "sampler/attribution.h"
#include "sampler/calibration.h"
#include "sampler/capture_builder.h"
#include "sampler/capture_writer.h"
#include "sampler/entry_windows.h"
#include "sampler/machine_load.h"
#include "sampler/overhead_budget.h"
#include "sampler/sampler_placement.h"
#include "sampler/stack_reader.h"
#include "sampler/tables.h"
#include "sampler/trace_writer.h"
#include "support/clock.h"
#include "support/safe_file.h"
#include "support/thread_cpu.h"

namespace quartz::sampler {
namespace {

constexpr uint64_t kOtherProcessesEveryNs = 100'000'000;
constexpr uint32_t kMaxSlots = 1u << 16;          // threads alive at once that can be sampled
constexpr uint32_t kRunnableBins = 33;            // runnable threads 0..31, then 32 or more
constexpr uint64_t kMinWindowNs = 10'000'000;     // CPU measurement at most every 10 ms
constexpr uint64_t kCpuReadBudgetNs = 1'100'000;  // window per thread: ~1% of a core
// Windows between two counts of the calls for the windows' reads (OverheadBudget::
// call_share): a pass over every call edge, ~0.3 ms, every 160 ms.
constexpr uint64_t kCallShareWindows = 10;
constexpr size_t kTraceChunkBytes = size_t{256} << 10;  // trace appended to its file past this
constexpr uint64_t kTraceFlushNs = 100'000'000;         // ... or this often
// Publishing the figures to `quartz run` (each snapshot) takes at most 2.5% of a
// processor, by the sampler's own clock: 50-60 us a time for the samples' captures on the
// slower machine (unsealed: docs/performance.md), so every 2 ms snapshot there; real
// programs' captures of 60-140 KB take 90-150 us, published every 2-3 snapshots. At 4%,
// with every byte checksummed twice, minimap2's sampler spent 4.3% of a processor on them.
constexpr uint64_t kPublishCostShare = 40;
// Snapshots on one processor before the next, when the sampler shares them
// (sampler_placement.h): each program thread pays alike over 50 ms. A move is a migration
// the kernel makes through the target processor (~100 us of the sampler's processor time
// on this VM): every 5 snapshots it took 30 ms of minimap2's sampler's 268.
constexpr uint64_t kSnapshotsPerTurn = 25;

// What the sampler remembers of the thread in each registry slot.
struct Track {
  uint32_t thread_index;
  uint32_t valid;
  int32_t tid;
  const rt::ThreadBlock* block;  // its own until its slot is retired (valid)
  uint32_t window_position;
  uint64_t last_cpu_ns;
  uint64_t last_runqueue_ns;
  uint32_t last_sequence;
  uint32_t has_cpu;
  uint64_t last_clock_ns;  // the thread's CPU clock at its last reading
  uint32_t has_clock;
  uint32_t active_sample;       // its last active sample in the current window, or kNone
  uint64_t active_duration_ns;  // that sample's interval
  // Where it was last seen running (busy or spinning), for the time it runs between two
  // snapshots that see it waiting (kNone: not yet seen running).
  uint32_t active_context;
  uint8_t active_state;
  uint8_t active_role;
  // Its context at its last snapshot with no entry off for a trial (seen_below).
  uint32_t seen_context;
  uint32_t clock_fresh;  // last_clock_ns was read in this snapshot
  // Run-queue time the last window measured but could not place: a wait under way when the
  // window closed reaches schedstat only when it ends, in the next window's reading, while
  // its samples were in this one. Given to the next window, once.
  uint64_t runqueue_carry_ns;
  uint64_t runqueue_carried_in_ns;  // of the window being measured: not carried again
  uint32_t retiring;  // ended while a capture was being built: its slot is retired after
  LifeCount life;     // how much of its life its samples have counted (ThreadSample::present)
};

struct Sampler {
  rt::Runtime* runtime = nullptr;
  pthread_t thread{};
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> ready{false};     // start() waits for it (sampler_main)
  std::atomic<bool> released{false};  // and then starts the run's clock (sampler_main waits)

  ProfileTables tables;
  Window window;
  StackReader reader;
  CaptureWriter writer;
  TraceWriter trace;
  support::MappedVector<Track> tracks;
  AttributionConfig config;
  AttributionTotals totals;
  RunInfo info;
  OverheadBudget budget;
  EntryWindows windows;  // on the procedures the budget turned off
  SharedProcessors turns;
  uint64_t snapshots = 0;
  uint64_t last_snapshot_ns = 0;
  uint64_t next_snapshot_ns = 0;  // when the next one is due
  uint64_t window_start_ns = 0;
  uint64_t window_ns = kMinWindowNs;
  uint64_t last_checkpoint_ns = 0;
  uint64_t checkpoint_cost_ns = 0;  // what the last checkpoint cost, by its threads' clocks
  uint64_t last_trace_flush_ns = 0;
  // Publications and checkpoints: the open window is attributed in a copy, with the tables
  // copied to the builder's input (freeze), and the builder makes the capture while the
  // snapshots go on.
  Window frozen_window;
  bool can_freeze = false;
  // Under `quartz run`, what each snapshot changed, amended into the published capture
  // (amendment_log.h) when no capture covering it was published at that snapshot.
  TableChanges changes;
  AmendmentLog amendments;
  bool amending = false;
  uint64_t covered_snapshot = ~uint64_t{0};  // a capture built at this snapshot covers it
  CaptureBuilder builder;
  uint64_t freeze_ns = 0;  // what the freeze of the job under way cost
  // Threads that ended while the builder worked, retired once it is done.
  support::MappedVector<rt::ThreadSlot*> retire_later;
  uint64_t last_publish_ns = 0;  // the snapshot time of the last publication
  // What the last publications cost by the sampler's clock, and their sizes (0: not
  // measured yet). The least cost a byte of the last four, times the last one's bytes,
  // stands for the next: the first ones touch new pages, one with cold caches is slow, and
  // a capture grows with the program's objects and contexts. The least cost alone stood
  // for a capture of 100,000 mutexes (58 MB) at 1.4 ms, from before the objects came,
  // where they cost 35-200 ms: it was published at nearly every snapshot.
  struct PublishCost {
    uint64_t ns;
    uint64_t bytes;
  };
  PublishCost publish_costs[4] = {};
  uint32_t publications = 0;
  MachineLoad load_at_start;    // the program's processors' busy time, to tell others' use
  uint64_t other_noted_ns = 0;  // when publish_capture last read it
  uint32_t live_threads = 0;
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

// The CPU clock a thread left at its end (0: none), never behind `last_ns`, the sampler's
// last reading of it while it still ran (its end may have been read before). The reading
// is taken as it is, our read included: taking a calibrated cost back out undercounted
// short threads wherever the calibration ran slower than the reads at their ends.
QUARTZ_NOINSTR uint64_t end_cpu_ns(const rt::ThreadBlock& ended, uint64_t last_ns) {
  const uint64_t read = ended.exit_cpu_ns.load(std::memory_order_relaxed);
  if (read == 0) return 0;
  return read > last_ns ? read : last_ns;
}

// A live reading of a thread's CPU clock, held to its end reading once it has one: a thread
// in its exit path (its slot still live) has used what that reading says; the rest is its
// exit, ours included, not the program's time. Checked after the read: a reading taken
// before the end's is below it.
QUARTZ_NOINSTR uint64_t held_to_end(const rt::ThreadBlock& block, uint64_t reading,
                                    uint64_t last_ns) {
  const uint64_t end = end_cpu_ns(block, last_ns);
  return end != 0 && end < reading ? end : reading;
}

// Reads a thread's CPU counters into its window entry, from the kernel or, for a thread
// that has ended, from what it left in its block.
QUARTZ_NOINSTR void measure(Sampler& s, Track& track, WindowThread& w,
                            const rt::ThreadBlock* ended) {
  support::ThreadCpu cpu{};
  bool ok;
  if (ended) {
    // Its own clock at its end; its run-queue time when it lived long enough to read it,
    // else as last read.
    cpu.cpu_ns = end_cpu_ns(*ended, track.has_cpu ? track.last_cpu_ns : 0);
    cpu.runqueue_ns = ended->exit_runqueue_ns.load(std::memory_order_relaxed);
    ok = cpu.cpu_ns != 0;
    if (cpu.runqueue_ns == rt::kExitRunqueueUnknown) cpu.runqueue_ns = track.last_runqueue_ns;
  } else {
    ok = support::read_thread_cpu(track.tid, &cpu);
    if (ok)
      cpu.cpu_ns = held_to_end(*track.block, cpu.cpu_ns, track.has_cpu ? track.last_cpu_ns : 0);
    if (ok && s.trace.is_open()) {
      s.trace.sample(w.thread, s.last_snapshot_ns - s.runtime->clock.start_ns, cpu.cpu_ns,
                     cpu.runqueue_ns, ~0u);
    }
  }
  if (!ok || !track.has_cpu || cpu.cpu_ns < track.last_cpu_ns) {
    if (ok) {
      track.last_cpu_ns = cpu.cpu_ns;
      track.last_runqueue_ns = cpu.runqueue_ns;
      track.has_cpu = 1;
    }
    return;
  }
  const uint64_t d_cpu = cpu.cpu_ns - track.last_cpu_ns;
  const uint64_t d_queue =
      cpu.runqueue_ns >= track.last_runqueue_ns ? cpu.runqueue_ns - track.last_runqueue_ns : 0;
  w.cpu_ns += d_cpu;
  w.runqueue_ns += d_queue + track.runqueue_carry_ns;
  track.runqueue_carried_in_ns += track.runqueue_carry_ns;
  track.runqueue_carry_ns = 0;
  w.measured = 1;
  if (s.tables.has_thread(w.thread)) {
    s.tables.thread_entry(w.thread).cpu_ns += d_cpu;
    s.tables.thread_entry(w.thread).runqueue_ns += d_queue;
  }
  track.last_cpu_ns = cpu.cpu_ns;
  track.last_runqueue_ns = cpu.runqueue_ns;
}

// The share of this interval the thread ran, from its CPU clock (-1: unknown), by the
// CPU-share rule (attribution.h). A thread that has ended is read from the clock it left in
// its block.
QUARTZ_NOINSTR float clock_share(Sampler& s, Track& track, const rt::ThreadBlock* block,
                                 bool active, bool ended, uint64_t duration_ns) {
  const bool was_active = track.active_sample != kNone;
  // Seen waiting at both ends of the interval, it ran in between only if its profile stack
  // moved (it left its wait): read its clock then, and only then.
  if (!active && !was_active && block->stack.sequence() == track.last_sequence) return -1;
  uint64_t clock_ns = ~uint64_t{0};
  if (!ended) support::read_thread_clock(track.tid, &clock_ns);
  // One gone since its slot was read has only its end reading (held_to_end of no reading).
  clock_ns = held_to_end(*block, clock_ns, track.has_clock ? track.last_clock_ns : 0);
  if (clock_ns == ~uint64_t{0}) return -1;
  const bool known = track.has_clock && clock_ns >= track.last_clock_ns;
  const double used_ns = known ? static_cast<double>(clock_ns - track.last_clock_ns) : 0;
  track.last_clock_ns = clock_ns;
  track.has_clock = 1;
  track.clock_fresh = 1;
  if (!known) return -1;
  return share_processor_time(used_ns, was_active ? &s.window.sample(track.active_sample) : nullptr,
                              track.active_duration_ns, active, duration_ns);
}

// A thread seen for the first time: its clocks count from where it joined the run, so a
// thread that lived between two snapshots, or before the first, is credited all it used.
QUARTZ_NOINSTR void start_track(Track& track, const rt::ThreadBlock& block, uint32_t index,
                                rt::SlotStatus status) {
  track = Track{};
  track.thread_index = index;
  track.valid = 1;
  track.tid = block.tid.load(std::memory_order_relaxed);
  track.block = &block;
  track.last_sequence = block.stack.sequence();
  track.active_sample = kNone;
  track.active_context = kNone;
  track.seen_context = kNone;
  track.last_clock_ns = block.start_cpu_ns;
  track.has_clock = 1;
  if (block.clocks_from_birth) {
    track.last_cpu_ns = 0;
    track.last_runqueue_ns = 0;
    track.has_cpu = 1;
    return;
  }
  // Not seen created (the main thread): its run-queue time is known from now on.
  support::ThreadCpu cpu;
  if (status == rt::SlotStatus::live && support::read_thread_cpu(track.tid, &cpu)) {
    track.last_cpu_ns = block.start_cpu_ns <= cpu.cpu_ns ? block.start_cpu_ns : cpu.cpu_ns;
    track.last_runqueue_ns = cpu.runqueue_ns;
    track.has_cpu = 1;
  }
}

// The share of the interval (`start_ns`, `now`] the thread existed (LifeCount).
QUARTZ_NOINSTR float presence(const rt::Runtime& runtime, Track& track, uint64_t start_ns,
                              uint64_t now) {
  const rt::ThreadRecord* record = runtime.history.find(track.thread_index);
  if (!record) return 1;
  const uint64_t created = record->created_ns.load(std::memory_order_relaxed);
  // Read even while the slot is live: a thread stores its end before its slot says so, and
  // may be preempted in between.
  const uint64_t exited = record->exited_ns.load(std::memory_order_relaxed);
  // A thread created before the run's clock started (by an earlier constructor) began
  // with the run.
  const uint64_t born = created ? std::max(created, runtime.clock.start_ns) : 0;
  return track.life.share(born, exited, start_ns, now);
}

QUARTZ_NOINSTR void count_hook_events(Track& track, WindowThread& w, const rt::ThreadBlock& block) {
  const uint32_t sequence = block.stack.sequence();
  w.hook_events += static_cast<uint32_t>(sequence - track.last_sequence) / 2;
  track.last_sequence = sequence;
}

// Attributes the window. Unless it is the last, its newest snapshot is carried into the
// next window: its samples' processor time is complete only once the next snapshot is read.
// After a window's attribution: each live thread's run-queue time its samples could not
// take as ready goes to the next window (Track::runqueue_carry_ns), at most what this
// window measured itself, so that nothing is carried twice.
QUARTZ_NOINSTR void carry_unplaced_runqueue(Sampler& s) {
  for (uint32_t i = 0; i < s.window.thread_count(); ++i) {
    const WindowThread& w = s.window.thread_at(i);
    if (w.track == kNone) continue;
    Track& track = s.tracks[w.track];
    if (!track.valid || track.thread_index != w.thread) continue;
    const double unplaced = static_cast<double>(w.runqueue_ns) - w.ready_used_ns;
    const uint64_t in = track.runqueue_carried_in_ns;
    const uint64_t own = w.runqueue_ns > in ? w.runqueue_ns - in : 0;
    const uint64_t carry = unplaced > 0 ? static_cast<uint64_t>(unplaced) : 0;
    track.runqueue_carry_ns = carry < own ? carry : own;
    track.runqueue_carried_in_ns = 0;
  }
}

QUARTZ_NOINSTR void close_window(Sampler& s, bool last = false) {
  for (uint32_t i = 0; i < s.window.thread_count(); ++i) {
    WindowThread& w = s.window.thread_at(i);
    if (w.track == kNone) continue;  // ended: measured when it ended
    Track& track = s.tracks[w.track];
    if (!track.valid || track.thread_index != w.thread) continue;
    measure(s, track, w, nullptr);
  }
  const uint32_t snapshots = s.window.snapshot_count();
  attribute_window(s.window, s.tables, s.config, s.totals,
                   last || snapshots == 0 ? snapshots : snapshots - 1);
  carry_unplaced_runqueue(s);
  if (last) {
    s.window.clear();
  } else {
    s.window.carry_last_snapshot();
    // The carried samples are the window's first: point their threads' tracks at them.
    for (uint32_t i = 0; i < s.window.thread_count(); ++i) {
      const WindowThread& w = s.window.thread_at(i);
      if (w.track == kNone) continue;
      Track& track = s.tracks[w.track];
      if (!track.valid || track.thread_index != w.thread) continue;
      track.window_position = i;
      const ThreadSample& sample = s.window.sample(i);
      track.active_sample = sample.state != capture::kBlocked ? i : kNone;
    }
  }
  s.window_ns = s.live_threads * kCpuReadBudgetNs > kMinWindowNs ? s.live_threads * kCpuReadBudgetNs
                                                                 : kMinWindowNs;
}

// Moves the thread's trace events to the trace file's chunk, with the sampler's reading of
// it: its CPU clock (when read this snapshot) and calling context, or what it left at exit.
// The innermost procedure of a calling context (above the objects a thread holds or waits
// for); 0 for none.
QUARTZ_NOINSTR uint64_t innermost_procedure(ProfileTables& tables, uint32_t context) {
  while (context != kNone && context < tables.context_count()) {
    const ContextNode& node = tables.context_node(context);
    if (node.kind == capture::kProcedure) return node.address;
    context = node.parent;
  }
  return 0;
}

QUARTZ_NOINSTR void trace_thread(Sampler& s, const Track& track, rt::ThreadBlock& block,
                                 const StackRead& read, rt::SlotStatus status, uint64_t now) {
  s.trace.drain(track.thread_index, block);
  const uint64_t at = now - s.runtime->clock.start_ns;
  if (status == rt::SlotStatus::exited) {
    // Always written: it tells readers the thread's trace is complete (cpu 0: not known).
    const uint64_t cpu = block.exit_cpu_ns.load(std::memory_order_relaxed);
    s.trace.sample(track.thread_index, at, cpu,
                   cpu ? block.exit_runqueue_ns.load(std::memory_order_relaxed) : ~0ull, ~0u);
  } else if (track.clock_fresh) {
    s.trace.sample(track.thread_index, at, track.last_clock_ns, ~0ull,
                   read.context == kNone ? ~0u : read.context);
  }
  s.trace.flush(kTraceChunkBytes);
}

// The time a snapshot taken `now` stands for: now, unless the program has ended (exit or
// the return from main), where the run ends (docs/design.md "Elapsed time"); never before
// the last snapshot.
QUARTZ_NOINSTR uint64_t snapshot_time(const Sampler& s, uint64_t now) {
  const uint64_t ended = s.runtime->end_ns.load(std::memory_order_relaxed);
  const uint64_t end = ended && ended < now ? ended : now;
  return end > s.last_snapshot_ns ? end : s.last_snapshot_ns;
}

// True for a thread created after `time`: created while the walk went on, it belongs to the
// next snapshot's interval.
QUARTZ_NOINSTR bool created_after(const rt::Runtime& runtime, uint32_t index, uint64_t time) {
  const rt::ThreadRecord* record = runtime.history.find(index);
  return record && record->created_ns.load(std::memory_order_relaxed) > time;
}

QUARTZ_NOINSTR void sleep_until(uint64_t monotonic_ns) {
  const timespec at{static_cast<time_t>(monotonic_ns / 1000000000),
                    static_cast<long>(monotonic_ns % 1000000000)};
  clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr);
}

// A stack read with turned-off entries on (EntryWindows): a busy thread's leaf procedure.
QUARTZ_NOINSTR void learn_from(Sampler& s, const StackRead& read) {
  if (read.state != capture::kBusy || read.context == kNone) return;
  const ContextNode& leaf = s.tables.context_node(read.context);
  const bool procedure = leaf.kind == capture::kProcedure;
  s.budget.note_window_read(procedure ? leaf.address : 0);
  if (procedure) s.windows.learn(read.context);
}

// Before the snapshot due at `next_ns`, when a window is due: turns the entries the budget
// turned off on, and reads the stacks of the threads already tracked a few more times while
// they are on. True when it opened one (the snapshot then closes it).
QUARTZ_NOINSTR bool open_entry_window(Sampler& s, uint64_t next_ns) {
  if (!s.windows.due(s.budget, s.snapshots)) return false;
  sleep_until(next_ns - EntryWindows::kLeadNs);
  s.windows.open(s.budget);
  // A read pulls the lines of the thread's stack to this core, and its next push waits for
  // them: reads close together would find the thread waiting to push. Each read comes a
  // full gap after the last (a relative sleep), the snapshot a gap after the last read.
  const timespec gap{0, static_cast<long>(EntryWindows::kReadGapNs)};
  for (uint32_t r = 0; r < EntryWindows::kReads; ++r) {
    clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, nullptr);
    if (support::monotonic_ns() + EntryWindows::kReadGapNs > next_ns) break;
    s.runtime->threads.for_each([&](rt::ThreadSlot& slot, rt::SlotStatus status) {
      rt::ThreadBlock* block = slot.block.load(std::memory_order_acquire);
      if (!block || slot.ordinal >= kMaxSlots || status == rt::SlotStatus::exited) return;
      const Track& track = s.tracks[slot.ordinal];
      if (!track.valid || track.thread_index != block->index) return;
      learn_from(s, s.reader.read(s.tables, slot.ordinal, false, *block));
    });
  }
  return true;
}

// The last snapshot (`last`) takes every thread: there is no next one. `window`: turned-off
// entries are on (open_entry_window).
QUARTZ_NOINSTR void take_snapshot(Sampler& s, uint64_t now, bool last = false,
                                  bool window = false) {
  if (s.window.full()) close_window(s);
  const uint64_t duration_ns = now - s.last_snapshot_ns;
  s.window.begin_snapshot(duration_ns, !window && s.windows.entries_off(s.budget));
  ++s.snapshots;
  s.last_snapshot_ns = now;
  uint32_t live = 0;
  const uintptr_t hidden = s.budget.trial_hides();
  s.runtime->threads.for_each([&](rt::ThreadSlot& slot, rt::SlotStatus status) {
    rt::ThreadBlock* block = slot.block.load(std::memory_order_acquire);
    if (!block || slot.ordinal >= kMaxSlots) return;
    Track& track = s.tracks[slot.ordinal];
    if (track.retiring) return;
    const uint32_t index = block->index;
    const bool fresh = !track.valid || track.thread_index != index;
    if (fresh && !last && created_after(*s.runtime, index, now)) return;
    if (fresh) start_track(track, *block, index, status);
    const StackRead read = s.reader.read(s.tables, slot.ordinal, fresh, *block);
    if (read.torn) ++s.info.torn_samples;
    if (window) learn_from(s, read);
    uint32_t context = read.context;
    if (hidden == 0) {
      track.seen_context = read.context;
    } else if (read.state == capture::kBusy) {
      context = seen_below(s.tables, read.context, track.seen_context, hidden);
    }
    if (s.budget.active() && read.state == capture::kBusy) {
      s.budget.note_sample(innermost_procedure(s.tables, context), duration_ns);
    }
    bool created;
    WindowThread* w = s.window.thread(index, &track.window_position, &created);
    if (!w) return;
    if (created) {
      w->tid = track.tid;
      w->track = slot.ordinal;
    }
    s.tables.thread(index);
    track.clock_fresh = 0;
    const bool ended = status == rt::SlotStatus::exited;
    const float run =
        clock_share(s, track, block, read.state != capture::kBlocked, ended, duration_ns);
    if (s.trace.is_open()) trace_thread(s, track, *block, read, status, now);
    ThreadSample sample{index,         track.window_position,
                        context,       read.state,
                        read.top_role, 0,
                        run,           presence(*s.runtime, track, now - duration_ns, now)};
    sample.released = read.released;
    if (read.state != capture::kBlocked) {
      track.active_sample = s.window.next_sample();
      track.active_duration_ns = duration_ns;
      track.active_context = context;
      track.active_state = read.state;
      track.active_role = read.top_role;
    } else {
      sample.ran_context = track.active_context;
      sample.ran_state = track.active_state;
      sample.ran_role = track.active_role;
      track.active_sample = kNone;
    }
    s.window.add_sample(sample);
    count_hook_events(track, *w, *block);
    if (ended) {
      measure(s, track, *w, block);
      w->track = kNone;
      track.valid = 0;
      if (s.builder.idle()) {
        s.runtime->threads.retire(&slot);
      } else if (rt::ThreadSlot** later = s.retire_later.append()) {
        *later = &slot;  // never full: a slot is in it once
        track.retiring = 1;
      }
    } else {
      ++live;
    }
  });
  s.live_threads = live;
  if (now - s.window_start_ns >= s.window_ns) {
    close_window(s);
    s.window_start_ns = now;
  }
}

// What other processes took of the program's processors so far (machine_load.h).
QUARTZ_NOINSTR void note_other_processes(Sampler& s) {
  MachineLoad now = s.load_at_start;
  s.info.other_cpu_known = s.load_at_start.valid && read_machine_load(&now, false);
  s.info.other_cpu_ns = s.info.other_cpu_known ? other_processes_ns(s.load_at_start, now) : 0;
}

// The trace written so far, for a capture written to the output (a publication tells the
// last one's figures): flushed, or finished when `final`.
QUARTZ_NOINSTR void note_trace(Sampler& s, bool final) {
  if (s.trace.is_open()) {
    if (final) {
      s.trace.finish();
    } else {
      s.trace.flush();
    }
    s.info.trace_events = s.trace.events();
    s.info.trace_dropped = s.trace.dropped();
    s.info.trace_bytes = s.trace.bytes();
  }
}

// The run section's other figures that change as the run goes on, as of now.
QUARTZ_NOINSTR void note_run_so_far(Sampler& s) {
  s.info.sampler_cpu_ns = own_cpu_ns() + s.builder.cpu_ns();
  s.info.cost_trials = s.budget.trials();
  s.info.unpatched = static_cast<uint32_t>(s.budget.unpatched().size());
  s.info.entry_windows = s.windows.windows();
  s.info.window_reads = s.windows.reads();
}

// Tells the runtime's status what became of a capture written to the output.
QUARTZ_NOINSTR void note_written(const Sampler& s, int error, bool final) {
  if (error == kBuildGivenUp) return;
  if (error) {
    rt::note_write_failed(rt::RunFile::capture, s.runtime->options.output, error);
  } else {
    rt::note_capture_written(final);
  }
}

// Before a capture is built into the shared slot not published: the amendments logged for
// that slot are older than it (amendment_log.h).
QUARTZ_NOINSTR void restart_log(Sampler& s) {
  capture::SharedCaptureHeader* region = s.writer.shared_region();
  if (s.amending && region) s.amendments.restart(*region, s.writer.next_slot());
}

// A capture written here, on the sampler thread, from the tables themselves: the final one
// (or a forked child's), or a checkpoint when there are no copies to freeze into.
QUARTZ_NOINSTR void write_capture(Sampler& s, bool final) {
  restart_log(s);
  note_trace(s, final);
  note_run_so_far(s);
  note_other_processes(s);
  ++s.info.checkpoints;
  note_written(s, s.writer.write(final, s.info, s.totals, s.tables, *s.runtime), final);
}

// What the next publication will cost (Sampler::publish_costs); 0 until four are
// measured (the first ones come at every snapshot).
QUARTZ_NOINSTR uint64_t publish_cost(const Sampler& s) {
  double least_per_byte = -1;
  for (const Sampler::PublishCost& c : s.publish_costs) {
    if (c.ns == 0 || c.bytes == 0) return 0;
    const double per_byte = static_cast<double>(c.ns) / static_cast<double>(c.bytes);
    if (least_per_byte < 0 || per_byte < least_per_byte) least_per_byte = per_byte;
  }
  const uint64_t last_bytes = s.publish_costs[(s.publications - 1) % 4].bytes;
  return static_cast<uint64_t>(least_per_byte * static_cast<double>(last_bytes));
}

// Once the builder is done with a job: its cost, and the threads that ended meanwhile
// retired. False while it is still at work.
QUARTZ_NOINSTR bool builder_free(Sampler& s) {
  if (!s.builder.idle()) return false;
  const CaptureBuilder::Done& done = s.builder.done();
  if (done.job != CaptureBuilder::Job::none) {
    // Its cost by the threads' own clocks: on processors the program keeps busy they also
    // wait for their turn, which costs the program nothing (by the wall clock a
    // publication read 50-370 us, twice its processor time, and came every 6 ms).
    const uint64_t cost = s.freeze_ns + done.cost_ns;
    if (done.job == CaptureBuilder::Job::publish && done.built) {
      s.publish_costs[s.publications++ % 4] = {cost, done.bytes};
    } else if (done.job == CaptureBuilder::Job::checkpoint) {
      s.checkpoint_cost_ns = cost;
      note_written(s, done.error, false);
    }
    s.builder.clear_done();
  }
  for (size_t i = 0; i < s.retire_later.size(); ++i) {
    rt::ThreadSlot* slot = s.retire_later[i];
    s.runtime->threads.retire(slot);
    s.tracks[slot->ordinal].retiring = 0;
  }
  s.retire_later.reuse();
  return true;
}

// Hands the builder a capture of the run as if it ended now: the open window attributed in
// a copy, its threads' run-queue time unread (their shortfall counts as blocked), the
// tables copied to the builder's input. A capture expected to cost less than a quarter of
// a period (`cost_ns`) is built here: handed over at every snapshot, the samples' captures
// (50-60 us) cost the sampler and the builder 40% more processor time than built here
// (lock_contention: 78 ms against 56), and the program 4.6% more elapsed time. False when
// the builder is at work.
QUARTZ_NOINSTR bool hand_over(Sampler& s, CaptureBuilder::Job job, uint64_t cost_ns) {
  if (!s.can_freeze || !builder_free(s)) return false;
  const uint64_t start = own_cpu_ns();
  restart_log(s);
  CaptureBuilder::Input& in = s.builder.input();
  if (!in.tables.assign(s.tables) || !s.frozen_window.assign(s.window)) return false;
  in.totals = s.totals;
  attribute_window(s.frozen_window, in.tables, s.config, in.totals,
                   s.frozen_window.snapshot_count());
  in.info = s.info;
  s.freeze_ns = own_cpu_ns() - start;
  if (cost_ns < s.info.period_ns / 4 || !s.builder.started()) {
    s.builder.run_here(job);
    if (s.amending && s.builder.done().built) {
      // Published now, from the tables as they are: nothing to amend.
      s.changes.next();
      s.amendments.covered(s.tables);
      s.covered_snapshot = s.snapshots;
    }
  } else {
    s.builder.hand_over(job);
  }
  return true;
}

// Under `quartz run`, the figures so far go to the parent at every snapshot, so that a
// program killed at any moment loses at most a period (DESIGN.md §3). A capture too big to
// publish that often is published less often.
QUARTZ_NOINSTR void publish_capture(Sampler& s, uint64_t now) {
  const uint64_t cost = publish_cost(s);
  // Half a period of slack: a publication due at this snapshot is not put off to the next
  // by a late wake-up.
  if (!s.writer.shared() ||
      now + s.info.period_ns / 2 < s.last_publish_ns + kPublishCostShare * cost ||
      !builder_free(s)) {
    return;
  }
  note_run_so_far(s);
  // /proc/stat costs more than the rest of a small publication: read it now and then (a
  // killed run's figure is then up to 100 ms old, of its 10 ms ticks anyway).
  if (now - s.other_noted_ns >= kOtherProcessesEveryNs) {
    note_other_processes(s);
    s.other_noted_ns = now;
  }
  if (hand_over(s, CaptureBuilder::Job::publish, cost)) s.last_publish_ns = now;
}

// What this snapshot changed, amended into the logs of the published capture
// (amendment_log.h), with the open window attributed in the tables themselves for the time
// it takes to write it (table_changes.h).
QUARTZ_NOINSTR void amend(Sampler& s) {
  capture::SharedCaptureHeader* region = s.writer.shared_region();
  if (!region || !s.frozen_window.assign(s.window)) return;
  AttributionTotals totals = s.totals;
  s.changes.begin_provisional(s.tables);
  attribute_window(s.frozen_window, s.tables, s.config, totals, s.frozen_window.snapshot_count());
  s.amendments.amend(*region, s.info, totals, s.tables, s.changes, *s.runtime);
  s.changes.end_provisional();
  s.totals.stamps = totals.stamps;  // a stamp is never used twice
}

// A checkpoint: the capture as a publication builds it, sealed and written to the output.
// False when it has to wait for the builder.
QUARTZ_NOINSTR bool write_checkpoint(Sampler& s, uint64_t checkpoint_cost) {
  if (!s.can_freeze) {
    write_capture(s, false);
    return true;
  }
  if (!builder_free(s)) return false;
  note_trace(s, false);
  note_run_so_far(s);
  note_other_processes(s);
  ++s.info.checkpoints;
  if (hand_over(s, CaptureBuilder::Job::checkpoint, checkpoint_cost)) return true;
  --s.info.checkpoints;
  return false;
}

// The snapshot after the one due: a period later, or a period after now when the sampler
// fell more than a period behind (a late wake-up): snapshots back to back would stand for
// nothing.
QUARTZ_NOINSTR void schedule_next_snapshot(Sampler& s) {
  const uint64_t now = support::monotonic_ns();
  s.next_snapshot_ns += s.info.period_ns;
  if (s.next_snapshot_ns <= now) s.next_snapshot_ns = now + s.info.period_ns;
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
  s->config.processors = child.processors;
  if (!s->tables.init(RecordShape{child.processors, kRunnableBins}, ProfileTables::Limits{}) ||
      !s->writer.init(runtime)) {
    return;
  }
  runtime.threads.attach_reader();
  write_capture(*s, true);
  runtime.threads.detach_reader();
}

// Placement, storage and calibration, on the sampler thread (hwloc binds the calling
// thread and allocates; this thread is ours).
QUARTZ_NOINSTR bool prepare(Sampler& s) {
  const rt::Options& options = s.runtime->options;
  s.config.processors = place_sampler(options, s.info, s.turns);
  // Finer sampling perturbs a program the sampler shares processors with (measured on 2:
  // 1 ms distorts the histogram by ~2 points and slows a lock-bound program by ~14%, 2 ms
  // by ~0.3 points and ~8%); on a core of its own 1 ms costs the program nothing.
  const uint32_t period_us = options.period_us ? options.period_us : s.info.reserve ? 1000 : 2000;
  s.info.period_ns = uint64_t{period_us} * 1000;
  s.info.window_snapshots = static_cast<uint32_t>(kMinWindowNs / s.info.period_ns + 1);
  const RecordShape shape{s.config.processors, kRunnableBins};
  constexpr uint32_t kMaxSnapshots = 4096;
  if (!s.tables.init(shape, ProfileTables::Limits{}) ||
      !s.window.init(kMaxSnapshots, kMaxSnapshots * 64, kMaxSlots) ||
      !s.reader.init(options.geometry.stack_capacity, kMaxSlots) || !s.writer.init(*s.runtime) ||
      !s.tracks.reserve(kMaxSlots) || !s.tracks.resize_at_least(kMaxSlots) ||
      !s.retire_later.reserve(kMaxSlots)) {
    return false;
  }
  // Without copies nothing is published, and checkpoints are built from the tables; without
  // the builder thread, captures are built on this one.
  s.can_freeze = s.builder.input().tables.init(shape, ProfileTables::Limits{}) &&
                 s.frozen_window.init(kMaxSnapshots, kMaxSnapshots * 64, kMaxSlots);
  if (s.can_freeze) s.builder.start(s.writer, *s.runtime, s.turns);
  s.amending = s.can_freeze && s.writer.shared() && s.changes.init(s.tables) && s.amendments.init();
  if (s.amending) s.tables.track(&s.changes);
  return true;
}

QUARTZ_NOINSTR void* sampler_main(void*) {
  rt::mark_runtime_thread();
  // Sleeps end within a microsecond, not the default 50 us: snapshots keep their period and
  // a window's reads their gaps.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
  Sampler& s = *g_sampler;
  const rt::Options& options = s.runtime->options;
  // The cost of the way in use: patched entries (the default), else the compiler's hooks.
  // Measured first, while the program waits (start): beside the program's own threads it
  // measured twice what they pay (26 ns a patched call beside xz's two, 13 ns alone).
  s.info.hook_pair_ns = rt::g_return_trampoline.load(std::memory_order_relaxed) != 0
                            ? calibrate_patched_call_ns(options.geometry)
                            : calibrate_hook_pair_ns(options.geometry);
  // Then the files the sampler starts with (the shared capture's region, the topology, the
  // machine's load), opened and closed while the program still waits: one starting by
  // listing its descriptors saw ours (fd 4 once in CI, where the run without Quartz had
  // none).
  const bool prepared = prepare(s);
  if (prepared) read_machine_load(&s.load_at_start, true);  // after placement: its processors
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
  if (s.budget.configure(s.info.budget_percent, s.info.hook_pair_ns, s.info.period_ns)) {
    s.info.budget = &s.budget;
    s.info.windows_known = s.budget.active() && s.windows.init(ProfileTables::Limits{}.contexts);
  }
  s.config.hook_event_ns = s.info.hook_pair_ns / 2;
  if (options.trace) {
    const double ns_per_tick = s.runtime->clock.ns_per_tick();
    rt::g_trace_cpu_interval_ticks =
        static_cast<uint64_t>(options.trace_cpu_us * 1000.0 / (ns_per_tick > 0 ? ns_per_tick : 1));
    s.info.trace_event_ns = calibrate_trace_event_ns(options.geometry);
    s.info.trace_cpu_read_ns = calibrate_cpu_read_ns();
    s.info.trace = s.trace.open(options.output, s.runtime->clock.start_ticks, ns_per_tick);
  }

  uint64_t now = support::monotonic_ns();
  // The first snapshot covers the run from its start: the program runs while the sampler
  // calibrates and opens its trace, so that is part of the program's elapsed time.
  s.last_snapshot_ns = s.runtime->clock.start_ns;
  s.window_start_ns = s.last_checkpoint_ns = now;
  s.next_snapshot_ns = now + period_ns;
  while (!s.stop_requested.load(std::memory_order_acquire)) {
    const bool window = open_entry_window(s, s.next_snapshot_ns);
    sleep_until(s.next_snapshot_ns);
    now = support::monotonic_ns();
    take_snapshot(s, snapshot_time(s, now), false, window);
    schedule_next_snapshot(s);
    builder_free(s);  // what the builder did, and the threads it kept from being retired
    if (window) {
      s.windows.close(s.budget);
      if (s.windows.windows() % kCallShareWindows == 0) s.budget.refresh_call_shares(*s.runtime);
      s.windows.update(s.tables, s.budget);
      s.config.hidden = s.windows.parts();
    }
    // The sampler is the registry's attached reader for the whole run.
    s.budget.step_trial(*s.runtime);
    s.budget.decide(*s.runtime, now - s.runtime->clock.start_ns);
    if (s.snapshots % kSnapshotsPerTurn == 0) take_next_turn(s.turns);
    // Every thread has ended, the main thread through pthread_exit: the process ends when
    // its last thread does, and that would be this one. Write the end and let it end.
    if (s.live_threads == 0 && !s.runtime->threads.any_thread_running()) break;
    if (s.trace.is_open() && now - s.last_trace_flush_ns >= kTraceFlushNs) {
      s.trace.flush();  // so that a reader streams the trace in modest chunks
      s.last_trace_flush_ns = now;
    }
    // A checkpoint builds the capture as a publication does, then seals and writes it: at
    // most the publications' share of a processor too, by the cost of the last one or, for
    // the first, of a publication (a capture of 100,000 mutexes, 58 MB before unseen objects
    // lost their zero figures: published in 35-105 ms, written in 0.37-0.63 s).
    const uint64_t checkpoint_cost = std::max(s.checkpoint_cost_ns, publish_cost(s));
    if (now - s.last_checkpoint_ns >=
        std::max(checkpoint_ns, kPublishCostShare * checkpoint_cost)) {
      if (write_checkpoint(s, checkpoint_cost)) s.last_checkpoint_ns = now;
    } else {
      publish_capture(s, now);
    }
    if (s.amending && s.covered_snapshot != s.snapshots) amend(s);
  }
  // The build under way is given up: the final capture has everything it would have had.
  s.builder.stop();
  builder_free(s);
  s.budget.stop_trial();
  take_snapshot(s, snapshot_time(s, support::monotonic_ns()), /*last=*/true);
  close_window(s, /*last=*/true);
  write_capture(s, true);
  s.runtime->threads.detach_reader();
  return nullptr;
}

}  // namespace

bool start(rt::Runtime& runtime) {
  if (g_sampler || !rt::real::pthread_create) return false;
  Sampler* s = new (g_storage) Sampler();
  s->runtime = &runtime;
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
  // patching of entries before it (2-3 ms here: the program's own clock from main's start
  // read that much less than the run's).
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
    const uint32_t processors = g_sampler->config.processors;
    g_forked_child = ForkedChild{processors ? processors : 1, g_sampler->info.start_realtime_ns};
  }
  g_sampler = nullptr;
}

}  // namespace quartz::sampler
