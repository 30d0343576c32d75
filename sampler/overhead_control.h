// What the sampler's loop asks of overhead control (docs/design.md "Overhead budget"): the
// cost of the runtime's own work, measured once before the program runs, and the budget
// that turns the costliest patched entries off and opens windows with them on again.
// Implemented by overhead/ (the one in-process part that switches entries) and
// handed to the sampler by the composition root, libquartz/; this base class is no control
// at all (nothing calibrated, no budget), as a unit test or a run without patched entries
// may want. Every call comes from the sampler thread.
//
// No pure virtual functions: they would need libstdc++'s __cxa_pure_virtual, and the
// runtime links no libstdc++.
#pragma once

#include <cstdint>

#include "runtime/thread_block.h"
#include "sampler/hidden_parts.h"
#include "sampler/run_info.h"
#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

class OverheadControl {
 public:
  // Before the program runs. What one instrumented call costs the thread that makes it (a
  // patched call when entries are patched, else a pair of the compiler's hooks); one trace
  // event; a thread's read of its own CPU clock. 0: not measured.
  QUARTZ_NOINSTR virtual double calibrate_call_ns(const rt::BlockGeometry&) { return 0; }
  QUARTZ_NOINSTR virtual double calibrate_trace_event_ns(const rt::BlockGeometry&) { return 0; }
  QUARTZ_NOINSTR virtual double calibrate_cpu_read_ns() { return 0; }

  // Starts a budget of `percent` of the program's own processor time (0: none) for calls
  // that cost `call_ns`, decided every so many of the sampler's periods of `period_ns`;
  // `max_contexts`, the tables' limit, bounds what the windows learn. Returns the budget's
  // decisions, as they will be made (RunInfo::decisions), or null without a budget.
  QUARTZ_NOINSTR virtual const UnpatchedProcedure* start_budget(uint32_t, double, uint64_t,
                                                                uint32_t) {
    return nullptr;
  }
  // True while the budget counts the busy samples' procedures (note_busy_sample).
  QUARTZ_NOINSTR virtual bool counting() const { return false; }
  // True when windows are kept (their figures go in the capture).
  QUARTZ_NOINSTR virtual bool keeps_windows() const { return false; }

  // Snapshot number `snapshot` is due: true when a window opens before it. The sampler then
  // turns the entries on (open_window) and reads the busy threads' stacks a few times more
  // (kWindowReads, kWindowReadGapNs apart, the first kWindowLeadNs before the snapshot).
  QUARTZ_NOINSTR virtual bool window_due(uint64_t) const { return false; }
  QUARTZ_NOINSTR virtual void open_window() {}
  // A stack read in the window found a thread in `state` at leaf `context` of `tables`.
  QUARTZ_NOINSTR virtual void note_window_read(uint8_t, uint32_t, const ProfileTables&) {}
  // After the snapshot that closes a window: the entries off again, and what the windows
  // found becomes the parts samples read with entries off are charged across.
  QUARTZ_NOINSTR virtual void close_window(ProfileTables&, HiddenParts*) {}
  // True when snapshots outside the windows read stacks with entries turned off.
  QUARTZ_NOINSTR virtual bool entries_off() const { return false; }
  // The procedure whose entry a cost trial has off now, else 0 (seen_below).
  QUARTZ_NOINSTR virtual uintptr_t trial_hides() const { return 0; }
  // A busy thread's innermost procedure at a snapshot: `duration_ns` of its own time.
  QUARTZ_NOINSTR virtual void note_busy_sample(uintptr_t, uint64_t) {}
  // After each snapshot, `run_ns` into the run: a trial moves on, a decision when due.
  QUARTZ_NOINSTR virtual void after_snapshot(uint64_t) {}
  // At the run's end: an entry a trial left off goes back on.
  QUARTZ_NOINSTR virtual void stop() {}

  // The run section's figures so far.
  QUARTZ_NOINSTR virtual uint32_t trials() const { return 0; }
  QUARTZ_NOINSTR virtual uint32_t decisions() const { return 0; }
  QUARTZ_NOINSTR virtual uint64_t windows() const { return 0; }
  QUARTZ_NOINSTR virtual uint64_t window_reads() const { return 0; }

  static constexpr uint64_t kWindowLeadNs = 500'000;
  static constexpr uint64_t kWindowReadGapNs = 20'000;
  static constexpr uint32_t kWindowReads = 8;
};

}  // namespace quartz::sampler
