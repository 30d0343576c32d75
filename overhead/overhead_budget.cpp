#include "overhead/overhead_budget.h"

#include <algorithm>

#include "runtime/patched_entry.h"

namespace quartz::sampler {
namespace {

constexpr uint32_t kCallsLog2 = 16;
constexpr uint32_t kMaxUnpatched = 4096;
constexpr uint64_t kCallShareSamples = 10;  // reads in windows before call_share is told
// A trial: each of its phases lasts this many snapshots (10 ms at the default period), twice
// as many at each try after one that told nothing (the pace of a program whose calls vary
// in cost varies from phase to phase) where the phases together said it cost more than
// calibrated; it starts on an entry whose calibrated cost is this share of the budget or
// more.
constexpr uint32_t kTrialPhaseSnapshots = 5;
constexpr uint8_t kTriesPerEntry = 3;
constexpr double kRetryOverCalibrated = 1.5;
constexpr double kTrialShareOfBudget = 0.1;
// Calls into the other entries on, in a phase's length of late, for a trial to start: a
// phase needs CostTrial::kMinPhaseCalls, and a program's pace varies.
constexpr double kCallsPerPhaseToTry = 4.0 * CostTrial::kMinPhaseCalls;
// A trial that was not steady (cost_trial.h) is tried again, as often as this, without
// counting as a try: an entry first tried as the program changes phase would otherwise
// never be tried again.
constexpr uint8_t kUnsteadyRetries = 2;
constexpr uint32_t kMaxTrials = 16;
// An entry whose measured calls cost beyond the calibrated cost this share of its
// procedure's own time or more is turned off, whatever the budget (decide()).
constexpr double kMisleadingShare = 0.25;
// Into the run, ms: the first decisions, then one every kDecisionEveryMs (a pass over the
// call edges, ~0.3 ms): a phase of the program that calls other procedures is held to the
// budget within a quarter of a second.
constexpr uint64_t kEarlyDecisionsMs[] = {20, 50, 100, 200, 500};
constexpr uint64_t kDecisionEveryMs = 250;

QUARTZ_NOINSTR uint64_t due_ns(uint32_t decision) {
  constexpr uint32_t early = sizeof kEarlyDecisionsMs / sizeof kEarlyDecisionsMs[0];
  const uint64_t ms =
      decision < early ? kEarlyDecisionsMs[decision]
                       : kEarlyDecisionsMs[early - 1] + kDecisionEveryMs * (decision - early + 1);
  return ms * 1000000;
}

// The slot of `procedure` in `table`, or the free one where it would go; null when its
// neighbourhood is full.
template <class Table>
QUARTZ_NOINSTR auto* slot_of(Table& table, uintptr_t procedure) {
  const size_t mask = table.size() - 1;
  for (size_t probe = 0, i = (procedure * 0x9E3779B97F4A7C15ull) >> (64 - kCallsLog2); probe < 64;
       ++probe, i = (i + 1) & mask) {
    if (table[i].procedure == procedure || table[i].procedure == 0) return &table[i];
  }
  return static_cast<decltype(&table[0])>(nullptr);
}

}  // namespace

bool OverheadBudget::configure(ProgramEntries& program, uint32_t percent, double call_ns,
                               uint64_t period_ns) {
  program_ = &program;
  percent_ = percent;
  call_ns_ = call_ns;
  period_ns_ = period_ns;
  if (percent_ == 0 || call_ns_ <= 0) return true;
  const size_t slots = size_t{1} << kCallsLog2;
  const bool reserved = calls_.reserve(slots) && calls_.resize_at_least(slots) &&
                        claimed_.reserve(slots) && own_.reserve(slots) &&
                        own_.resize_at_least(slots) && unpatched_.reserve(kMaxUnpatched);
  if (!reserved) percent_ = 0;  // no room: no budget (and no sample noted)
  return reserved;
}

// The procedure's slot, claimed if new; null when its neighbourhood is full (it is not
// considered in this decision).
OverheadBudget::Calls* OverheadBudget::find(support::MappedVector<Calls>& table,
                                            uintptr_t procedure) {
  Calls* c = slot_of(table, procedure);
  if (c) c->procedure = procedure;
  return c;
}

OverheadBudget::Calls* OverheadBudget::find_call(uintptr_t procedure) {
  Calls* c = slot_of(calls_, procedure);
  if (!c) return nullptr;
  if (c->procedure == 0) {
    uint32_t* slot = claimed_.append();
    if (!slot) return nullptr;
    *slot = static_cast<uint32_t>(c - &calls_[0]);
    c->procedure = procedure;
  }
  return c;
}

void OverheadBudget::note_sample(uintptr_t procedure, uint64_t period_ns) {
  if (!active() || procedure == 0) return;
  if (Calls* c = find(own_, procedure)) c->own_ns += period_ns;
}

void OverheadBudget::window_opened() {
  window_opened_cpu_ns_ = program_->cpu_ns();
}

void OverheadBudget::window_closed() {
  window_cpu_ns_ += std::max(0.0, program_->cpu_ns() - window_opened_cpu_ns_);
}

void OverheadBudget::note_window_read(uintptr_t procedure) {
  if (!active()) return;
  ++window_reads_;
  if (Calls* c = procedure ? find(own_, procedure) : nullptr) ++c->window_samples;
}

double OverheadBudget::ratio(const Calls& c) const {
  // A procedure no snapshot has seen yet took less than a period, not nothing: a rarely
  // called one must not go first for want of samples.
  const double own_ns = static_cast<double>(std::max(c.own_ns, period_ns_));
  return static_cast<double>(c.calls) * call_ns(c) / own_ns;
}

void OverheadBudget::count_calls() {
  for (size_t i = 0; i < claimed_.size(); ++i) calls_[claimed_[i]] = Calls{};
  claimed_.reuse();
  for (size_t i = 0; i < unpatched_.size(); ++i) {
    if (Calls* c = find_call(unpatched_[i].procedure)) {
      c->decided = true;
      c->off = unpatched_[i].off;
      c->calls_before = unpatched_[i].calls;
    }
  }
  program_->for_each_edge([&](uintptr_t caller, uintptr_t callee, uint64_t calls) {
    Calls* to = find_call(callee);
    if (!to) return;
    to->calls += calls;
    if (Calls* from = to->off && caller ? find_call(caller) : nullptr) {
      from->calls_to_off += calls;
    }
  });
  for (size_t i = 0; i < claimed_.size(); ++i) {
    Calls& c = calls_[claimed_[i]];
    Calls* own = find(own_, c.procedure);
    if (!own) continue;
    c.own_ns = own->own_ns;
    c.measured_ns = own->measured_ns;
    if (own->window_samples >= kCallShareSamples && window_cpu_ns_ > 0) {
      const uint64_t to_off =
          c.calls_to_off > own->off_before ? c.calls_to_off - own->off_before : 0;
      const uint64_t into = c.off && c.calls > c.calls_before ? c.calls - c.calls_before : 0;
      // What a trial measured beyond the calibrated cost is the callee's: its own loads wait.
      const double excess_ns = c.measured_ns > call_ns_ ? c.measured_ns - call_ns_ : 0;
      const double paid_ns =
          static_cast<double>(to_off) * (1 - rt::kPatchedCallCalleeShare) * call_ns_ +
          static_cast<double>(into) * (rt::kPatchedCallCalleeShare * call_ns_ + excess_ns);
      const double window_ns =
          static_cast<double>(own->window_samples) * window_cpu_ns_ / window_reads_;
      own->call_share = paid_ns / window_ns;
    }
  }
}

double OverheadBudget::call_share(uintptr_t procedure) const {
  if (!active() || procedure == 0) return 0;
  const Calls* c = slot_of(own_, procedure);
  return c && c->procedure == procedure ? c->call_share : 0;
}

bool OverheadBudget::due(uint64_t run_ns) const {
  return active() && !trial_.running() && (decide_now_ || run_ns >= due_ns(decisions_));
}

void OverheadBudget::decide(uint64_t run_ns) {
  if (!due(run_ns)) return;
  decide_now_ = false;
  while (run_ns >= due_ns(decisions_)) ++decisions_;
  count_calls();
  // Held over the time since the last decision, not the whole run: a phase whose procedures
  // are new would otherwise run far over the budget until their calls outweigh the earlier
  // phases' time. The program's own processor time in that interval: the process's, less
  // this thread's and the calls'. What changed since the last decision is noted for the
  // trial as well: it goes to what the program does now.
  double recent_calls_ns = 0, patched_calls_ns = 0;
  for (size_t i = 0; i < claimed_.size(); ++i) {
    Calls& c = calls_[claimed_[i]];
    Calls* own = find(own_, c.procedure);
    const uint64_t before = own ? own->calls_decided : 0;
    c.calls_since = c.calls > before ? c.calls - before : 0;
    if (own) {
      own->calls_recent = c.calls_since;
      own->calls_decided = c.calls;
    }
    const double cost = static_cast<double>(c.calls_since) * call_ns(c);
    recent_calls_ns += cost;
    if (!c.decided) patched_calls_ns += cost;
  }
  const double process_ns = program_->cpu_ns();
  const double recent_ns = process_ns - cpu_decided_ns_;
  // A calibration run on a loaded machine overstates the calls' cost: the program's own time
  // is never taken for less than half its processor time (else a negative budget would turn
  // every entry off).
  const double own_ns = std::max(recent_ns - recent_calls_ns, recent_ns / 2);
  const double allowed_ns = own_ns * percent_ / 100.0;
  bool any_off = false;
  while (patched_calls_ns > allowed_ns && unpatched_.size() < unpatched_.capacity()) {
    Calls* costliest = nullptr;
    double highest = 0;
    for (size_t i = 0; i < claimed_.size(); ++i) {
      Calls& c = calls_[claimed_[i]];
      if (c.decided || c.calls_since == 0) continue;
      // Ties go to the first slot, whatever the order the procedures were met in.
      const double r = ratio(c);
      if (!costliest || r > highest || (r == highest && &c < costliest)) {
        costliest = &c;
        highest = r;
      }
    }
    if (!costliest) break;
    // Off or not (a procedure with no entry to turn off), its calls are no longer the
    // patched entries' to answer for: left in the sum, they would turn off every other
    // entry called in the interval.
    patched_calls_ns -= static_cast<double>(costliest->calls_since) * call_ns(*costliest);
    any_off |= turn_off(*costliest, run_ns);
  }
  // Within the budget or not, an entry whose calls cost the program well beyond the
  // calibrated cost misleads: the excess falls in the procedure itself (the loads it waits
  // on are its own), which then reads that much longer than it runs without the entry
  // (nearly twice as long for minimap2's mm_idx_get).
  for (size_t i = 0; i < claimed_.size() && unpatched_.size() < unpatched_.capacity(); ++i) {
    Calls& c = calls_[claimed_[i]];
    if (c.decided || c.measured_ns <= call_ns_) continue;
    const double excess_ns = static_cast<double>(c.calls) * (c.measured_ns - call_ns_);
    if (excess_ns > kMisleadingShare * static_cast<double>(std::max(c.own_ns, period_ns_))) {
      any_off |= turn_off(c, run_ns);
    }
  }
  if (any_off) note_calls_before();
  cpu_decided_ns_ = process_ns;
  if (trials_ < kMaxTrials) {
    start_trial(recent_ns * percent_ / 100.0, run_ns - decided_run_ns_);
  }
  decided_run_ns_ = run_ns;
}

bool OverheadBudget::turn_off(Calls& c, uint64_t run_ns) {
  c.decided = true;
  // A procedure without an entry to turn off (the compiler's hooks, an OpenMP region's
  // count) stays counted: noted, so that it is not tried again.
  const bool off = program_->turn_off(c.procedure);
  c.newly_off = off;
  *unpatched_.append() = UnpatchedProcedure{c.procedure, c.calls, run_ns, off, c.measured_ns};
  entries_off_ += off ? 1 : 0;
  return off;
}

void OverheadBudget::start_trial(double allowed_recent_ns, uint64_t recent_run_ns) {
  Calls* own = nullptr;   // the most called of late, in own_
  uint64_t calls_on = 0;  // into the entries on, of late
  for (size_t i = 0; i < claimed_.size(); ++i) {
    const Calls& c = calls_[claimed_[i]];
    if (!c.decided) calls_on += c.calls_since;
    if (c.decided || c.measured_ns > 0) continue;
    Calls* o = find(own_, c.procedure);
    if (o && o->tries < kTriesPerEntry && (!own || o->calls_recent > own->calls_recent)) own = o;
  }
  if (!own ||
      static_cast<double>(own->calls_recent) * call_ns_ < allowed_recent_ns * kTrialShareOfBudget) {
    return;
  }
  // A trial reads the pace in the other entries' calls: where they were too few of late to
  // tell it in every phase, it would tell nothing and hold the decisions back meanwhile.
  const uint64_t phase_ns = (uint64_t{kTrialPhaseSnapshots} << own->tries) * period_ns_;
  const double others_per_phase = static_cast<double>(calls_on - own->calls_recent) *
                                  static_cast<double>(phase_ns) /
                                  static_cast<double>(std::max<uint64_t>(recent_run_ns, 1));
  if (others_per_phase < kCallsPerPhaseToTry) return;
  trial_entry_ = program_->entry_of(own->procedure);
  if (trial_entry_ == 0) {  // no entry to switch (a hook's, OpenMP's)
    own->tries = kTriesPerEntry;
    return;
  }
  trial_phase_snapshots_ = kTrialPhaseSnapshots << own->tries++;
  ++trials_;
  trial_snapshots_ = 0;
  trial_.start(own->procedure, read_pace(own->procedure));
}

PaceReading OverheadBudget::read_pace(uintptr_t tried) {
  PaceReading r;
  program_->for_each_edge([&](uintptr_t, uintptr_t callee, uint64_t calls) {
    if (callee == tried) {
      r.tried_calls += calls;
      return;
    }
    // Entries turned off are on in the windows only: their calls say nothing of the pace.
    const Calls* c = slot_of(calls_, callee);
    if (!c || c->procedure != callee || !c->decided) r.other_calls += calls;
  });
  r.cpu_ns = static_cast<uint64_t>(program_->cpu_ns());
  return r;
}

void OverheadBudget::step_trial() {
  if (!trial_.running() || ++trial_snapshots_ < trial_phase_snapshots_) return;
  trial_snapshots_ = 0;
  const bool was_on = CostTrial::entry_on(trial_.phase());
  if (!trial_.end_phase(read_pace(trial_.procedure()))) {
    const bool on = CostTrial::entry_on(trial_.phase());
    if (on != was_on) program_->switch_entries(&trial_entry_, 1, on);
    return;
  }
  // The last phase had the entry on, as it is left. A trial that told nothing is tried
  // again only where its phases, taken together, say the calls cost more than calibrated.
  const double measured = trial_.call_ns();
  if (Calls* own = find(own_, trial_.procedure())) {
    if (measured > 0) {
      own->measured_ns = measured;
    } else if (!trial_.steady() && own->unsteady < kUnsteadyRetries) {
      // It ran across a change in what the program does: tried again as if it had not been.
      ++own->unsteady;
      --own->tries;
    } else if (!(trial_.mean_call_ns() > kRetryOverCalibrated * call_ns_)) {
      own->tries = kTriesPerEntry;
    }
  }
  decide_now_ = true;
}

void OverheadBudget::stop_trial() {
  if (trial_.running() && !CostTrial::entry_on(trial_.phase())) {
    program_->switch_entries(&trial_entry_, 1, true);
  }
}

void OverheadBudget::note_calls_before() {
  program_->for_each_edge([&](uintptr_t caller, uintptr_t callee, uint64_t calls) {
    const Calls* to = slot_of(calls_, callee);
    if (!caller || !to || to->procedure != callee || !to->newly_off) return;
    if (Calls* from = find(own_, caller)) from->off_before += calls;
  });
}

}  // namespace quartz::sampler
