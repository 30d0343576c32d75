// How far a run's figures can be trusted, from what the runtime said of its measurement:
// sampling, instrumentation, limits reached, the unprofiled baseline, start-up and
// wind-down starvation. The report's "Sampling" lines and warnings, and the viewer's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

// Start-up and wind-down starvation, in processor-seconds: processor time idle because
// fewer threads were at work (existing, not waiting in a join) than processors, while a
// thread besides the first was at work (sampler/attribution.h; docs/design.md "Diagnosis").
struct Starvation {
  bool measured = false;  // false: a capture from before Quartz measured it
  double startup_s = 0;   // before the program first had P threads at work (all: never had)
  double between_s = 0;   // between the first and the last time it had
  double winddown_s = 0;  // after the last time it had
  std::optional<double> first_full_s, last_full_s;  // since the run's start; none: never
  double total_s() const { return startup_s + between_s + winddown_s; }
};

// A limit of the runtime that this run reached, so data was lost: which, how much, and the
// `quartz run` flag that raises it ("" when none does).
struct LimitReached {
  std::string limit;  // "object table", "call-graph table", ...
  uint64_t lost = 0;
  std::string lost_what;  // "objects not registered", ...
  std::string flag;       // "--objects-log2"
};

// A procedure whose patched entry the overhead budget turned off (overhead/overhead_budget.h):
// from then on its calls are not counted and its time is its caller's.
struct UnpatchedProcedure {
  std::string name;
  uint64_t calls = 0;  // counted until then
  double at_s = 0;     // into the run
  double call_ns = 0;  // what a call cost the program, as a trial measured it; 0: not measured
  uint64_t address = 0;
};

// One run of the program without the profiler (`quartz run --baseline`), beside this one.
struct Baseline {
  double elapsed_s = 0;       // unprofiled
  double cpu_s = 0;           // unprofiled, all its threads
  double profiled_cpu_s = 0;  // this run's threads (the sampler is not among them)
};

struct Quality {
  uint64_t samples = 0;
  uint64_t thread_samples = 0;
  double period_s = 0;  // asked for
  // The schedule the sampler kept (sampler/measure/period.h): the period it lengthened to
  // at most, the snapshots due by it, taken late, lost; 0 due: a capture from before it.
  double period_longest_s = 0;
  uint64_t snapshots_due = 0, snapshots_late = 0, snapshots_lost = 0;
  std::string sampler_priority;  // capture key "sampler_priority"; empty: not recorded
  double walk_s = 0;             // the snapshots' walks over the threads, of sampler_cpu_s
  // The period the schedule kept on average: the elapsed time over the snapshots due.
  double period_kept_s(double elapsed_s) const {
    return snapshots_due ? elapsed_s / static_cast<double>(snapshots_due) : period_s;
  }
  double torn_rate = 0;           // torn stack copies per thread sample
  double dilation_removed_s = 0;  // processor time taken out as hook overhead
  double hook_pair_ns = 0;        // one call's cost: through a patched entry, or the hooks
  // How procedures were seen: through patched entries (this many), else the compiler's
  // hooks; the overhead budget, percent (0: none), and the entries it turned off.
  uint64_t patched_entries = 0;
  std::string procedure_patterns;  // --procedures: only the entries of these were patched
  uint32_t budget_percent = 0;
  std::vector<UnpatchedProcedure> unpatched;
  uint64_t cost_trials = 0;  // entries the budget switched off and on to measure their cost
  // Windows in which those entries were on again, and the stack reads made in them: the
  // turned-off procedures' time since is estimated from those reads (0: not estimated).
  uint64_t entry_windows = 0;
  uint64_t window_reads = 0;
  double sampler_cpu_s = 0;
  // Processor time other processes took from the program's processors; none: not measured.
  std::optional<double> other_cpu_s;
  bool reserved_core = false;
  std::string cpu_measurement;  // "schedstat" or "model"
  std::string openmp;           // how OpenMP was seen (capture key "openmp"); empty: none
  std::string itt;              // how ITT notifications were seen (key "itt"); empty: none
  std::optional<Baseline> baseline;
  uint64_t stack_overflows = 0, unmatched_exits = 0;
  uint64_t dropped = 0;  // objects, calls or contexts that found no room
  bool final = true;     // false: the run ended abnormally; data up to a checkpoint
  // A run amended after its last capture (an abnormal end under `quartz run`): its counts
  // of calls and acquisitions cover it to here, its times to its end.
  std::optional<double> counts_elapsed_s;
  bool traced = false;  // recorded with --trace (quartz predict can use it)
  uint64_t trace_events = 0, trace_dropped = 0, trace_bytes = 0;
  std::vector<LimitReached> limits_reached;  // the one list of them: report and viewer

  // How procedures were seen, for report and viewer: "N patched entries", none when
  // --procedures matched no entry, else the compiler's hooks.
  std::string seen_through() const;
  // How the OpenMP runtime was seen, in words; empty: the program used none.
  std::string openmp_seen_through() const;
  // True when the program's own OMPT tool kept libomp's: its waits count as work.
  bool openmp_unseen() const { return openmp == capture::run_keys::kOpenmpProgramTool; }
  // Who received the ITT notifications (oneTBB's, the program's), in words; empty: none came.
  std::string itt_seen_through() const;
  bool itt_unseen() const { return itt == capture::run_keys::kIttProgramCollector; }
};

Quality quality_of(const profile::Run& run);
Starvation starvation_of(const profile::Run& run);
// The run's --baseline, if it has one.
std::optional<Baseline> baseline_of(const profile::Run& run);
// The procedures whose entries the overhead budget turned off (capture key "unpatched").
std::vector<UnpatchedProcedure> unpatched_procedures(const profile::Run& run);

}  // namespace quartz::analysis
