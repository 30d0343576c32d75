// The sampler's snapshots (docs/design.md "Sampler"): at each, every thread's state and
// calling context (stack_reader.h) and its CPU clock (thread_clocks.h) go into a window;
// every CPU window (10 ms or more) each thread's processor and run-queue time is read and
// the window attributed to the tables (attribution.h). Also the extra reads of the entry
// windows the overhead control opens. On the sampler thread only; never blocks the program.
#pragma once

#include <cstdint>

#include "runtime/runtime.h"
#include "sampler/attribution.h"
#include "sampler/measure/stack_reader.h"
#include "sampler/measure/thread_clocks.h"
#include "sampler/overhead_control.h"
#include "sampler/publish/trace_writer.h"
#include "sampler/run_info.h"
#include "sampler/tables.h"
#include "sampler/window.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class Snapshots {
 public:
  static constexpr uint32_t kMaxSlots = 1u << 16;  // threads alive at once that can be sampled
  static constexpr uint32_t kRunnableBins = 33;    // runnable threads 0..31, then 32 or more
  static constexpr uint32_t kMaxSnapshots = 4096;  // in a window

  // The tables alone, for `processors` (a forked child's capture of its counts).
  QUARTZ_NOINSTR bool init_tables(uint32_t processors);
  // Everything, for a run on `processors` whose snapshots `trace` (when open) and
  // `overhead` follow. False without memory.
  QUARTZ_NOINSTR bool init(rt::Runtime& runtime, RunInfo& info, OverheadControl& overhead,
                           TraceWriter& trace, uint32_t processors);
  // The first snapshot covers the run from its start (`run_start_ns`); the first window
  // starts `now`.
  QUARTZ_NOINSTR void begin(uint64_t run_start_ns, uint64_t now);

  // Before the snapshot due at `next_ns`, when the overhead control has a window due: turns
  // the entries it turned off on, and reads the stacks of the threads already tracked a few
  // more times while they are on. True when it opened one (the snapshot then closes it).
  QUARTZ_NOINSTR bool open_entry_window(uint64_t next_ns);
  // Takes a snapshot standing for `now` (snapshot_time). The last one (`last`) takes every
  // thread: there is no next one. `window`: turned-off entries are on (open_entry_window).
  // An ended thread's slot is retired at once when `retire_now`, else once retire_deferred
  // is called (a capture being built reads the slots).
  QUARTZ_NOINSTR void take(uint64_t now, bool last, bool window, bool retire_now);
  // Attributes the window. Unless it is the last, its newest snapshot is carried into the
  // next window: its samples' processor time is complete only once the next snapshot is
  // read.
  QUARTZ_NOINSTR void close_window(bool last = false);
  QUARTZ_NOINSTR void retire_deferred();
  // The time a snapshot taken `now` stands for: now, unless the program has ended (exit or
  // the return from main), where the run ends (docs/design.md "Elapsed time"); never before
  // the last snapshot.
  QUARTZ_NOINSTR uint64_t snapshot_time(uint64_t now) const;

  QUARTZ_NOINSTR uint64_t count() const { return count_; }
  // What closing a window cost the last take (0: it closed none), by the sampler's clock:
  // a window's cost follows its own budget, not the period (period.h).
  QUARTZ_NOINSTR uint64_t close_cost_ns() const { return close_cost_ns_; }
  QUARTZ_NOINSTR uint32_t live_threads() const { return live_threads_; }

  // The profile so far, for the captures.
  ProfileTables tables;
  Window window;
  AttributionConfig config;
  AttributionTotals totals;

 private:
  // True when the thread in registry slot `ordinal` has a clock read this snapshot.
  QUARTZ_NOINSTR bool clock_turn(uint32_t ordinal) const;
  QUARTZ_NOINSTR void trace_thread(const Track& track, rt::ThreadBlock& block,
                                   const StackRead& read, rt::SlotStatus status, uint64_t now);
  QUARTZ_NOINSTR void measure(Track& track, WindowThread& w, const rt::ThreadBlock* ended);

  rt::Runtime* runtime_ = nullptr;
  RunInfo* info_ = nullptr;
  OverheadControl* overhead_ = nullptr;
  TraceWriter* trace_ = nullptr;
  StackReader reader_;
  support::MappedVector<Track> tracks_;
  // Threads that ended while a capture was being built, retired once it is done.
  support::MappedVector<rt::ThreadSlot*> retire_later_;
  uint64_t count_ = 0;
  uint64_t last_ns_ = 0;
  uint64_t window_start_ns_ = 0;
  uint64_t window_ns_ = 0;
  uint32_t live_threads_ = 0;
  uint64_t close_cost_ns_ = 0;
  // Clock reads (thread_clocks.h) cost a system call each: a snapshot makes at most
  // clock_reads_ of them, given to the threads of clock_reads_ consecutive registry slots
  // from clock_cursor_ (modulo slot_span_, the slots in use), the same ones for a window so
  // that each read closes the interval the last one opened, the next ones the next window.
  double clock_read_ns_ = 0;
  uint32_t clock_reads_ = 0;
  uint32_t clock_cursor_ = 0;
  uint32_t slot_span_ = 0;
};

}  // namespace quartz::sampler
