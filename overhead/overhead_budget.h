// The overhead budget (docs/design.md "Overhead budget", `quartz run --budget PCT`): keeps
// what patched entries cost under a share of the program's own processor time, by turning
// off the entries of the procedures that cost the most, early in the run and from the
// runtime's own counts.
//
// A patched call costs a calibrated c ns (calibrate_patched_call_ns), or what a trial
// measured for its entry (cost_trial.h). At each decision the calls counted since the last
// one per procedure give each one's cost in that interval, n * c; the program's own time in
// it is its processor time less those costs. While the costs of the entries still on exceed
// the budget's share of the program's own time, the entry called in the interval that costs
// most against its procedure's own time is turned off: its procedure is called as often as ever but
// costs no call from then on, and its time goes to its caller. An entry whose trial measured calls
// well beyond the calibrated cost is turned off whatever the budget: what they cost beyond it falls
// in the procedure itself, whose time it inflates. Decisions come at 20, 50, 100, 200 and 500 ms
// into the run, every 250 ms after, and as soon as a trial ends; each is one pass over the call
// edges. After a decision, the entry left on that was called most since the decision before is
// tried, if those calls cost a tenth of what the budget allowed then or more by the calibrated
// figure (its real cost may be several times that) and the other entries' calls are enough
// to read the program's pace by.
#pragma once

#include <cstdint>

#include "overhead/cost_trial.h"
#include "overhead/program_entries.h"
#include "sampler/run_info.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class OverheadBudget {
 public:
  // `percent` of `program`'s own processor time (0: no budget); `call_ns`, a patched call's
  // cost; `period_ns`, the sampler's. False without memory.
  QUARTZ_NOINSTR bool configure(ProgramEntries& program, uint32_t percent, double call_ns,
                                uint64_t period_ns);

  // A busy thread's innermost procedure in a snapshot: `period_ns` of its own time.
  QUARTZ_NOINSTR void note_sample(uintptr_t procedure, uint64_t period_ns);
  // A window (entry_windows.h) opens and closes: the program's processor time in it is
  // measured, and each busy read in it stands for an equal share of that. Measured, not
  // the window's length over the reads it asks for: a loaded machine wakes the sampler
  // late (fewer reads fit) and runs the program's threads a part of the window only.
  QUARTZ_NOINSTR void window_opened();
  QUARTZ_NOINSTR void window_closed();
  // A read in a window found a busy thread, in `procedure` (0: in an object's context).
  QUARTZ_NOINSTR void note_window_read(uintptr_t procedure);
  // Counts the calls again and refreshes call_share() between decisions (one pass over the
  // call edges, as a decision's).
  QUARTZ_NOINSTR void refresh_call_shares() {
    if (active()) count_calls();
  }
  QUARTZ_NOINSTR bool active() const { return percent_ != 0 && call_ns_ > 0; }
  // True when a decision is due `run_ns` into the run (none while a trial runs).
  QUARTZ_NOINSTR bool due(uint64_t run_ns) const;
  // Decides, when due.
  QUARTZ_NOINSTR void decide(uint64_t run_ns);
  // After each snapshot: moves a trial on, a phase every few snapshots.
  QUARTZ_NOINSTR void step_trial();
  // At the run's end: an entry a trial left off goes back on.
  QUARTZ_NOINSTR void stop_trial();
  QUARTZ_NOINSTR uint32_t trials() const { return trials_; }
  // The procedure whose entry a trial has off now (since the last snapshot), else 0.
  QUARTZ_NOINSTR uintptr_t trial_hides() const {
    return trial_.running() && !CostTrial::entry_on(trial_.phase()) ? trial_.procedure() : 0;
  }

  QUARTZ_NOINSTR const support::MappedVector<UnpatchedProcedure>& unpatched() const {
    return unpatched_;
  }
  QUARTZ_NOINSTR uint32_t percent() const { return percent_; }
  // The program it turns entries off in (configure's).
  QUARTZ_NOINSTR ProgramEntries& program() const { return *program_; }
  // Entries turned off so far (decisions that found no entry to turn off not counted).
  QUARTZ_NOINSTR uint32_t entries_off() const { return entries_off_; }
  // What the windows (entry_windows.h) add to the procedure's own time: the calls made
  // since entries were turned off, which cost nothing outside them, split between caller
  // and callee as runtime/patched_entry.h measures: its calls to the procedures turned off
  // and, if its own entry is off, the calls into it; over its own time in the windows as
  // their reads found it; as of the last count, 0 until ten reads.
  // The windows take it out of what they read.
  QUARTZ_NOINSTR double call_share(uintptr_t procedure) const;

 private:
  struct Calls {
    uintptr_t procedure;
    uint64_t calls;           // into it
    uint64_t calls_since;     // calls_: into it since the last decision
    uint64_t calls_to_off;    // from it, to procedures whose entries are off
    uint64_t calls_before;    // calls_: into it, when its entry was turned off
    uint64_t own_ns;          // sampled
    uint64_t window_samples;  // own_: reads in windows that found it (note_window_read)
    uint64_t off_before;      // own_: its calls to each procedure turned off, when it was
    double call_share;        // own_: call_share()
    double measured_ns;       // own_, and calls_ from it: a call's cost as its trial measured
    uint8_t tries;            // own_: trials of its entry (the most, if it had none to try)
    uint8_t unsteady;         // own_: trials of it that were not steady, not counted in tries
    uint64_t calls_decided;   // own_: its calls at the last decision
    uint64_t calls_recent;    // own_: its calls between the last two decisions
    bool decided;             // calls_: its entry was turned off, or could not be
    bool off;                 // calls_: its entry is off
    bool newly_off;           // calls_: turned off at this decision
  };
  // Notes, for each procedure that called those turned off at this decision, its calls to
  // them so far (Calls::off_before).
  QUARTZ_NOINSTR void note_calls_before();
  QUARTZ_NOINSTR void count_calls();
  QUARTZ_NOINSTR static Calls* find(support::MappedVector<Calls>& table, uintptr_t procedure);
  // find() in calls_, noting a slot it claims: a decision clears and scans only those.
  QUARTZ_NOINSTR Calls* find_call(uintptr_t procedure);
  // What a call through its entry costs: measured, else calibrated.
  QUARTZ_NOINSTR double call_ns(const Calls& c) const {
    return c.measured_ns > 0 ? c.measured_ns : call_ns_;
  }
  // Cost against what it tells: its calls' cost over its own time (at least a period).
  QUARTZ_NOINSTR double ratio(const Calls& c) const;
  // Turns the entry of `c`'s procedure off (noted as decided either way); false when it has
  // none to turn off.
  QUARTZ_NOINSTR bool turn_off(Calls& c, uint64_t run_ns);
  // Tries the entry left on called most since the last decision, when its calls then may
  // have cost a share of what the budget allowed then or more.
  QUARTZ_NOINSTR void start_trial(double allowed_recent_ns, uint64_t recent_run_ns);
  // The counts a trial of `tried`'s entry reads at a phase's end.
  QUARTZ_NOINSTR PaceReading read_pace(uintptr_t tried);

  ProgramEntries* program_ = nullptr;
  uint32_t percent_ = 0;
  double call_ns_ = 0;
  uint64_t period_ns_ = 0;
  double window_cpu_ns_ = 0;         // the program's processor time in the windows
  double window_opened_cpu_ns_ = 0;  // ... as it was when the one under way opened
  uint64_t window_reads_ = 0;        // busy reads in the windows
  uint32_t decisions_ = 0;
  uint32_t entries_off_ = 0;
  bool decide_now_ = false;  // a trial has ended
  CostTrial trial_;
  uintptr_t trial_entry_ = 0;           // the tried procedure's patched entry
  uint32_t trial_snapshots_ = 0;        // into the phase under way
  uint32_t trial_phase_snapshots_ = 0;  // its phases' length: longer at each try
  uint32_t trials_ = 0;
  double cpu_decided_ns_ = 0;           // the program's processor time at the last decision
  uint64_t decided_run_ns_ = 0;         // ... and its time into the run
  support::MappedVector<Calls> calls_;  // open addressing by procedure, refilled per decision
  // The slots of calls_ in use: a pass over the whole table (2^16 slots, 5 MB) at each
  // count would be a third of the sampler's time in a short run.
  support::MappedVector<uint32_t> claimed_;
  support::MappedVector<Calls> own_;  // the same, own time only, kept over the run
  support::MappedVector<UnpatchedProcedure> unpatched_;
};

}  // namespace quartz::sampler
