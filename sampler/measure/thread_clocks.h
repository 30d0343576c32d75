// Each thread's clocks as the sampler reads them (docs/design.md "Sampler"): its CPU clock
// at every snapshot where it may have run (the CPU-share rule, attribution.h), its
// processor and run-queue time (schedstat) once a window, what it left in its block at its
// end, and the share of each interval it existed. A Track is what the sampler remembers of
// the thread in one registry slot.
#pragma once

#include <cstdint>

#include "runtime/runtime.h"
#include "runtime/thread_block.h"
#include "runtime/thread_registry.h"
#include "sampler/attribution.h"
#include "sampler/tables.h"
#include "sampler/window.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"
#include "support/thread_cpu.h"

namespace quartz::sampler {

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
  // Active at a snapshot whose reads went to other threads (clock_share): its next reading
  // spans intervals its samples did not time, and only starts the next one.
  uint32_t clock_gap;
  // Run-queue time the last window measured but could not place: a wait under way when the
  // window closed reaches schedstat only when it ends, in the next window's reading, while
  // its samples were in this one. Given to the next window, once.
  uint64_t runqueue_carry_ns;
  uint64_t runqueue_carried_in_ns;  // of the window being measured: not carried again
  // Processor time the last window measured and could not place (WindowThread::
  // cpu_unplaced_ns), given to the next window, once: at most what that window measured of
  // its own (a thread whose samples never take its time does not pile it up).
  uint64_t cpu_carry_ns;
  uint64_t cpu_carried_in_ns;
  uint32_t last_yields;  // its block's sched_yield calls at the last snapshot (wrapping)
  uint32_t retiring;     // ended while a capture was being built: its slot is retired after
  LifeCount life;        // how much of its life its samples have counted (ThreadSample::present)
};

// A thread seen for the first time: its clocks count from where it joined the run, so a
// thread that lived between two snapshots, or before the first, is credited all it used.
QUARTZ_NOINSTR void start_track(Track& track, const rt::ThreadBlock& block, uint32_t index,
                                rt::SlotStatus status);

// Reads a thread's processor and run-queue time into its window entry and its table entry,
// from the kernel or, for a thread that has ended (`ended`), from what it left in its block.
// True when the kernel was read, its reading then in `*live` (for the trace).
QUARTZ_NOINSTR bool measure_cpu(Track& track, WindowThread& w, const rt::ThreadBlock* ended,
                                ProfileTables& tables, support::ThreadCpu* live);

// The share of this interval the thread ran, from its CPU clock (-1: unknown), by the
// CPU-share rule (attribution.h). A thread that has ended is read from the clock it left in
// its block. `may_read`: this snapshot has a clock read for it (Snapshots' clock turns);
// without one its sample is untimed and takes its part of what the window's measurement
// leaves (attribution.h).
QUARTZ_NOINSTR float clock_share(Track& track, const rt::ThreadBlock& block, bool active,
                                 bool ended, bool may_read, uint64_t duration_ns, Window& window);

// The share of the interval (`start_ns`, `now`] the thread existed (LifeCount).
QUARTZ_NOINSTR float presence(const rt::Runtime& runtime, Track& track, uint64_t start_ns,
                              uint64_t now);

// The hook events the thread made since its last snapshot (overhead compensation).
QUARTZ_NOINSTR void count_hook_events(Track& track, WindowThread& w, const rt::ThreadBlock& block);

// After a window's attribution: each live thread's run-queue time its samples could not
// take as ready, and its processor time they could not take, go to the next window
// (Track::runqueue_carry_ns, cpu_carry_ns), at most what this window measured itself, so
// that nothing is carried twice.
QUARTZ_NOINSTR void carry_unplaced_time(Window& window, support::MappedVector<Track>& tracks);

}  // namespace quartz::sampler
