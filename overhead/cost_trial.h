// What one patched entry really costs the program (docs/design.md "Overhead budget"). The
// calibrated cost of a patched call is what the call costs alone; beside a program's own
// memory-bound work it can cost several times more: the calls' instructions fill the window
// in which the processor would overlap the program's loads (minimap2's mm_idx_get: 45 ns
// calibrated, ~300 ns by its trials). Nothing the entry reports shows that; only the
// program's pace with the entry off does.
//
// A trial switches one entry off and on over eight phases of equal length, in the order on,
// off, off, on, on, off, off, on (a steady drift in the program's pace weighs both states
// alike), and reads the program's pace in each: calls counted into the other entries still
// on, per ns of the program's processor time. It tells a cost only when every phase with
// the entry off went faster than every phase with it on (by chance, 1 time in 70): the
// share of the processor time the entry cost while on, over its calls then.
//
// A trial is steady when the program kept one pace in each state: the phases of a state
// within a factor of kSteadySpread of each other. One that is not ran across a change in
// what the program does (indexing, then mapping), and tells nothing of the entry either
// way.
#pragma once

#include <cstdint>

#include "support/attributes.h"

namespace quartz::sampler {

// The counts at a phase's end.
struct PaceReading {
  uint64_t other_calls = 0;  // into the other entries still on
  uint64_t tried_calls = 0;  // into the entry tried
  uint64_t cpu_ns = 0;       // the program's processor time (the sampler's left out)
};

class CostTrial {
 public:
  static constexpr uint32_t kPhases = 8;
  // A phase with fewer calls into the other entries says too little of the pace.
  static constexpr uint64_t kMinPhaseCalls = 100;
  // Room to spare: steady trials keep a state's phases within about 1.1 of each other.
  static constexpr double kSteadySpread = 1.5;

  // Whether the entry is on in `phase` (on, off, off, on, on, off, off, on).
  QUARTZ_NOINSTR static constexpr bool entry_on(uint32_t phase) { return (phase + 1) / 2 % 2 == 0; }

  // Starts a trial of `procedure`'s entry (on), with the counts now.
  QUARTZ_NOINSTR void start(uintptr_t procedure, const PaceReading& now) {
    procedure_ = procedure;
    phase_ = 0;
    last_ = now;
  }
  QUARTZ_NOINSTR bool running() const { return procedure_ != 0 && phase_ < kPhases; }
  QUARTZ_NOINSTR uintptr_t procedure() const { return procedure_; }
  QUARTZ_NOINSTR uint32_t phase() const { return phase_; }
  // Ends the phase under way with the counts now; true when it was the last.
  QUARTZ_NOINSTR bool end_phase(const PaceReading& now);
  // After the last phase: what a call through the entry cost the program, ns; negative when
  // the trial tells nothing (the pace did not differ the same way in every phase, or too few
  // calls were counted).
  QUARTZ_NOINSTR double call_ns() const;
  // The same figure from all the phases together, whether or not every one agreed; 0 before
  // the last phase or without calls.
  QUARTZ_NOINSTR double mean_call_ns() const;
  // After the last phase: whether the program kept one pace in each state (above).
  QUARTZ_NOINSTR bool steady() const;

 private:
  // A phase's pace: calls into the other entries per ns; 0 with too few to tell.
  QUARTZ_NOINSTR double pace(uint32_t phase) const;

  uintptr_t procedure_ = 0;
  uint32_t phase_ = 0;
  PaceReading last_{};
  PaceReading phases_[kPhases]{};  // counted in each phase
};

}  // namespace quartz::sampler
