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
//     Δ·f_j / max(1, e), in the histogram bins floor(e) and floor(e) + 1 in proportion
//     (contribution.h; Quartz's Equation 1 bins round(e)): with less than one processor's
//     worth busy, normalized time is processor time, never more;
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

#include "sampler/hidden_parts.h"
#include "sampler/tables.h"
#include "sampler/window.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

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
// between), the earlier's part within its presence; after a wait, all to this sample (it ran after
// waking); before a wait, or between two waits, all to this interval, charged where the thread was
// last seen running (the sampler reads a waiting thread's clock only when it has left its wait
// since). Crediting every interval to the sample at its end instead gives a phase that starts after
// a lock wait too little (17% with 5 ms phases and a 2 ms period); crediting the time before a
// wait, or between two waits, to another interval leaves it out of the processors busy in its own.
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
