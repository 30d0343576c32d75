// Normalized processor time: the one place where DESIGN.md §2 is computed.
//
// The sampler collects snapshots into a window (each thread's calling context and state at
// each snapshot, and the processor time it used since the last snapshot) and measures each
// thread's run-queue time over the window. At the end of the window every snapshot is
// attributed:
//   - a busy thread j runs for a share f_j of the interval Δ: measured, f_j = its processor
//     time in the interval / Δ; else, where only the window's processor time is known, that
//     over the time it was sampled active (busy or spinning); else the model
//     f = min(1, P / r). Of the rest of the time it existed in the interval (all of it, but
//     for a thread created or ended inside it), the window's run-queue time decides how much
//     is "ready"; what remains is "blocked in the kernel" (I/O, sleep);
//   - e = Σ f_j over busy threads; r = Σ (running + ready share) over busy and spinning
//     threads;
//   - a busy thread's processor time grows by Δ·f_j and its normalized processor time by
//     Δ·f_j / max(1, e), in the histogram bin round(e) ∈ 1..P (Quartz's Equation 1: with
//     less than one processor's worth busy, normalized time is processor time, never more);
//     the time nobody was busy, (1 - e)·Δ when e < 1 (all of Δ when e = 0), is split among
//     the threads in proportion to the time each existed in it, and recorded in bin 0;
//   - those amounts go to the thread, the program, the thread's calling context (self), and
//     every distinct procedure and object on its stack (the top one as self, the others on
//     behalf; a recursive procedure once); elapsed time in each state, and the runnable
//     count r while in it, go to the same records.
// Objects also get their wait (spinning or blocked, when they are on top and awaited), hold
// (when held anywhere on the stack) and queue length (threads waiting, while in use).
//
// Overhead compensation: a thread's measured processor time includes the runtime's hooks;
// `hook_event_ns` times the thread's hook events in the window is taken out of it before
// f_j is computed (the removed time is reported as dilation).
#pragma once

#include <cstdint>

#include "sampler/tables.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

// Roles of the top stack entry, as the runtime records them (EntryRole).
enum TopRole : uint8_t { kRoleNone = 0, kRoleWaiting = 1, kRoleHolding = 2, kRoleReleased = 3 };

// The share of each interval a thread existed (ThreadSample::present), from its creation
// and end, counting each stretch of its life once. A thread's first sample also carries
// the time since its creation that no snapshot saw (it had not started running yet), and a
// sample read after the thread stored its end (its slot may still say live) the time it
// lived while the walk went on past the snapshot's time, so a share can exceed 1; the next
// sample then starts where that one stopped. Its state times add up to its lifetime.
struct LifeCount {
  uint64_t counted_to_ns = 0;  // the end of the last stretch counted; 0: none yet

  // `born_ns`, `ended_ns`: 0 when not known (yet); the interval is (`start_ns`, `now`].
  QUARTZ_NOINSTR float share(uint64_t born_ns, uint64_t ended_ns, uint64_t start_ns, uint64_t now) {
    if (now <= start_ns) return 1;
    uint64_t from = born_ns > start_ns || (counted_to_ns == 0 && born_ns) ? born_ns : start_ns;
    if (from < counted_to_ns) from = counted_to_ns;
    const uint64_t to = ended_ns ? ended_ns : now;
    if (to <= from) return 0;
    counted_to_ns = to;
    return static_cast<float>(static_cast<double>(to - from) / static_cast<double>(now - start_ns));
  }
};

// One thread at one snapshot.
struct ThreadSample {
  uint32_t thread;         // thread index
  uint32_t window_thread;  // index into Window::threads
  uint32_t context;        // the leaf calling context; kNone when the stack is empty
  uint8_t state;           // capture::kBusy, kSpinning or kBlocked, as the runtime saw it
  uint8_t top_role;        // TopRole of the leaf
  uint16_t unused;
  // The thread's processor time credited to this sample (from its CPU clock), as a share
  // of the interval; may exceed 1 (its part of the next interval's, by the CPU-share
  // rule below). < 0: unknown.
  // A blocked sample's is the time it ran in the interval before its wait (`ran_*`).
  float run;
  // The share of the interval the thread existed: less than 1 when it was created or ended
  // inside it. Its state times add up to this, so a thread's add up to its lifetime.
  float present = 1;
  // A blocked sample's time before its wait ran where the thread was last seen running:
  // that sample's context, state and role (kNone: not yet seen running).
  uint32_t ran_context = kNone;
  uint8_t ran_state = 0;
  uint8_t ran_role = kRoleNone;
  // The mutex its wait released (StackRead::released): not held while it waits.
  uint32_t released = kNone;
};

struct SnapshotRecord {
  uint64_t duration_ns;  // the interval this snapshot stands for
  uint32_t first;        // its first ThreadSample
  uint32_t count;
  bool entries_off;  // read with entries turned off: its samples go by config.hidden
};

// One thread's CPU progress over a window.
struct WindowThread {
  uint32_t thread;
  uint32_t measured;      // 1 when cpu_ns and runqueue_ns are valid
  int32_t tid;            // for the sampler, which measures it
  uint32_t track;         // for the sampler: the registry slot it was read from
  uint64_t cpu_ns;        // processor time during the window
  uint64_t runqueue_ns;   // time runnable but waiting for a processor
  uint64_t hook_events;   // hook calls during the window (overhead compensation)
  double active_ns;       // derived: sampled busy or spinning, while present
  double clocked_ns;      // derived: active time whose samples read the CPU clock
  double clocked_run_ns;  // derived: of it, time running
  double run;             // derived: running share of active time, for samples not measured
  double ready;           // derived: ready share of active time, for samples not measured
  double ready_ratio;     // derived: ready part of a measured sample's shortfall
  double run_scale;       // derived: hook overhead taken out of a measured sample's share
  double fill;            // derived: share of a measured sample's room below its presence
                          // that runs, for the running a share capped at presence lost
  double capped_run_ns;   // derived: running in clocked samples, each capped at presence
  double room_ns;         // derived: clocked samples' presence not running
  double ready_used_ns;   // derived: ready time charged to its samples
};

class Window {
 public:
  QUARTZ_NOINSTR bool init(uint32_t max_snapshots, uint32_t max_samples, uint32_t max_threads);
  QUARTZ_NOINSTR void clear();
  // Becomes a copy of `other` (initialised with the same bounds).
  QUARTZ_NOINSTR bool assign(const Window& other);
  // Starts a new window holding only the current one's last snapshot (its threads keep
  // their identities; their measurements start again). A sample's processor time is only
  // complete once the next snapshot is read, so the last snapshot waits for the next window.
  QUARTZ_NOINSTR void carry_last_snapshot();

  // Starts a snapshot; then add_sample for each thread. False when the window is full.
  QUARTZ_NOINSTR bool begin_snapshot(uint64_t duration_ns, bool entries_off = false);
  QUARTZ_NOINSTR bool add_sample(const ThreadSample& sample);
  // The window's entry for a thread (created zeroed on first use, `*created` then set);
  // null when full. `*position` is a hint, updated to the entry's position.
  QUARTZ_NOINSTR WindowThread* thread(uint32_t thread_index, uint32_t* position, bool* created);

  QUARTZ_ALWAYS_INLINE uint32_t snapshot_count() const {
    return static_cast<uint32_t>(snapshots_.size());
  }
  QUARTZ_ALWAYS_INLINE uint32_t thread_count() const {
    return static_cast<uint32_t>(threads_.size());
  }
  QUARTZ_ALWAYS_INLINE WindowThread& thread_at(uint32_t i) { return threads_[i]; }
  QUARTZ_ALWAYS_INLINE const SnapshotRecord& snapshot(uint32_t i) const { return snapshots_[i]; }
  QUARTZ_ALWAYS_INLINE const ThreadSample& sample(uint32_t i) const { return samples_[i]; }
  QUARTZ_ALWAYS_INLINE ThreadSample& sample(uint32_t i) { return samples_[i]; }
  // Position the next add_sample() will fill.
  QUARTZ_ALWAYS_INLINE uint32_t next_sample() const {
    return static_cast<uint32_t>(samples_.size());
  }
  QUARTZ_ALWAYS_INLINE bool full() const {
    return snapshots_.size() == snapshots_.capacity() ||
           samples_.size() + threads_.capacity() > samples_.capacity();
  }

 private:
  support::MappedVector<SnapshotRecord> snapshots_;
  support::MappedVector<ThreadSample> samples_;
  support::MappedVector<WindowThread> threads_;
  support::MappedVector<WindowThread> scratch_;  // carry_last_snapshot's copy of its threads
};

// Where a sample goes that was taken while the overhead budget had entries turned off
// (sampler/entry_windows.h): its context read may hide procedures, and windows with the
// entries on found which contexts under it the thread was in, how often.
struct HiddenPart {
  uint32_t read;     // the context a snapshot reads with the entries off
  uint32_t context;  // one the windows found under it
  double weight;     // its share of `read`'s samples
};
struct HiddenParts {
  const HiddenPart* parts = nullptr;  // sorted by read
  size_t count = 0;
  // The parts of `read`; *n = 0 (null) when the windows found nothing hidden under it.
  QUARTZ_NOINSTR const HiddenPart* of(uint32_t read, uint32_t* n) const;
};

// While a trial has `hidden`'s entry off (OverheadBudget::trial_hides), a busy thread read
// in context `read` may be in `hidden` called from there, its time going to the caller:
// zstd's ZSTD_compressBlock_lazy2_row read 8-19% of the processor time from run to run,
// perf 2%, by how long the trials of its callee's entry kept it off. The thread's context
// when last seen with the entry on (`seen`) stands for it if it lies under `read` through
// `hidden`: a draw from where the thread was under `read` a few ms before, so that over a
// trial the callee keeps its share. Else `read`.
QUARTZ_NOINSTR uint32_t seen_below(ProfileTables& tables, uint32_t read, uint32_t seen,
                                   uintptr_t hidden);

struct AttributionConfig {
  uint32_t processors = 1;   // P
  double hook_event_ns = 0;  // cost of one hook event, removed from processor time
  HiddenParts hidden;        // for snapshots taken with entries off (SnapshotRecord)
};

// Start-up and wind-down starvation (docs/design.md "Diagnosis"): processor time idle for
// want of threads at work. A thread is at work while it exists, except while it waits in a
// join (for another's end). A snapshot counts while a thread other than the first (index
// 0) is at work and has worked (been busy, running or ready, for half a sample at least
// once), so the program's serial code before it starts threads and after they end does
// not, even beside helper threads that only wait. In it, the starved processors are
// min(idle, P - threads at work), idle = P - e - spinning. They are charged to the busy
// threads in proportion to their running shares (ThreadEntry) and, with one processor busy,
// to their contexts: the context's normalized time times the share of the other P - 1
// processors that had no thread (min(1, starved / (P - 1))), the part a serial bottleneck
// must not claim (ProfileTables::context_apart). With one processor busy, the other P - 1
// that the program's other threads were ready for (runnable, not running: taken by other
// processes, or being woken) did not wait for it either: their share of what starvation
// left, min(idle - starved, the others' ready) / (P - 1), is charged the same way (taken).
struct Starvation {
  double startup_s = 0;   // before the program first had P threads at work (processor-s)
  double between_s = 0;   // between the first and the last time it had
  double winddown_s = 0;  // since the last time it had (so far)
  bool full_seen = false;
  double first_full_s = 0, last_full_s = 0;  // since the run's start
};

struct AttributionTotals {
  double elapsed_s = 0;           // sum of snapshot intervals
  double dilation_removed_s = 0;  // processor time taken out as hook overhead
  uint64_t snapshots = 0;
  uint64_t thread_samples = 0;
  uint64_t stamps = 0;  // one per (snapshot, thread): recursion and repeats count once
  double busy_beyond_processors_s = 0;  // processor time not yet placed in the bins
  Starvation starvation;
};

// The CPU-share rule: a thread's CPU clock, read at a snapshot, tells the processor time
// it used since its previous reading (`used_ns`), which is shared out like a trapezoid:
// between two active samples, half to each (the change of procedure fell somewhere in
// between); after a wait, all to this sample (it ran after waking); before a wait, or
// between two waits, all to this interval, charged where the thread was last seen running
// (the sampler reads a waiting thread's clock only when it has left its wait since).
// Crediting every interval to the sample at its end instead gave a phase that starts after
// a lock wait 17% too little (measured with 5 ms phases and a 2 ms period); crediting the
// time before a wait to the last snapshot's interval, and the time between two waits to
// the next active sample's, left it out of the processors busy in its own, and two pairs
// of threads handing work back and forth (0.75 ms turns, 2 ms period) showed one
// processor busy a third of the time where the threads' clocks say a tenth.
// `earlier`: the thread's last active sample, of an interval of `earlier_duration_ns`, when
// it was active at the snapshot before; its `run` grows by its part. `active`: this sample
// is busy or spinning. Returns this sample's share of its interval `duration_ns` (a
// waiting sample's: the time it ran before its wait), or -1 when unknown.
QUARTZ_NOINSTR float share_processor_time(double used_ns, ThreadSample* earlier,
                                          uint64_t earlier_duration_ns, bool active,
                                          uint64_t duration_ns);

// Attributes the first `snapshots` snapshots of `window` (all of them by default) to
// `tables`; the caller then clears or carries the window.
QUARTZ_NOINSTR void attribute_window(Window& window, ProfileTables& tables,
                                     const AttributionConfig& config, AttributionTotals& totals,
                                     uint32_t snapshots = ~0u);

}  // namespace quartz::sampler
