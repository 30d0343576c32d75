#include "analysis/run_quality.h"

#include <sstream>

#include "analysis/display_names.h"

namespace quartz::analysis {

using namespace quartz::profile;

namespace {

// Each limit that dropped data, with the flag that raises it. Objects count both the
// runtime's registry (QUARTZ_OBJECTS_LOG2) and the sampler's tables, which hold 2^18 and
// are only reached past that.
std::vector<LimitReached> limits_reached(const Run& run, const Quality& q) {
  using namespace capture::run_keys;
  const auto count = [&](const char* key) { return static_cast<uint64_t>(run.number(key)); };
  const LimitReached all[] = {
      {"object table", count(kObjectsDropped), "objects not registered", "--objects-log2"},
      {"call-graph table", count(kCallsDropped), "calls not counted by edge", "--call-graph-log2"},
      {"calling-context table", count(kContextsDropped), "samples charged to a context's parent",
       ""},
      {"profile stack depth", q.stack_overflows, "entries past the stack's capacity",
       "--stack-capacity"},
      {"trace queues", q.trace_dropped, "trace events dropped", "--trace-capacity"},
  };
  std::vector<LimitReached> reached;
  for (const LimitReached& limit : all) {
    if (limit.lost > 0) reached.push_back(limit);
  }
  return reached;
}

}  // namespace

std::string Quality::seen_through() const {
  if (patched_entries != 0) return std::to_string(patched_entries) + " patched entries";
  if (!procedure_patterns.empty()) {
    return "no patched entry: --procedures '" + procedure_patterns + "' matches none";
  }
  return "the compiler's hooks";
}

std::string Quality::openmp_seen_through() const {
  if (openmp == capture::run_keys::kOpenmpLibgomp) return "GNU libgomp's entry points";
  if (openmp == capture::run_keys::kOpenmpOmpt) return "LLVM libomp's tools interface (OMPT)";
  if (openmp_unseen()) {
    return "pthreads only: the program's own OMPT tool has libomp's, whose waits count as work";
  }
  return openmp;
}

std::string Quality::itt_seen_through() const {
  if (itt == capture::run_keys::kIttCollector) return "libquartz's collector";
  if (itt_unseen())
    return "nobody here: the program's own collector (INTEL_LIBITTNOTIFY64) has them";
  return itt;
}

std::vector<UnpatchedProcedure> unpatched_procedures(const Run& run) {
  std::vector<UnpatchedProcedure> out;
  std::istringstream list(run.text(capture::run_keys::kUnpatched));
  std::string item;
  while (std::getline(list, item, ';')) {
    std::istringstream fields(item);
    uint64_t address = 0, calls = 0, at_ns = 0, call_ns = 0;
    int off = 0;
    if (!(fields >> std::hex >> address >> std::dec >> calls >> at_ns >> off) || !off) continue;
    if (!(fields >> call_ns)) call_ns = 0;  // a capture from before trials
    out.push_back({display_name(run, address), calls, static_cast<double>(at_ns) * 1e-9,
                   static_cast<double>(call_ns), address});
  }
  return out;
}

std::optional<Baseline> baseline_of(const Run& run) {
  using namespace capture::run_keys;
  if (run.number(kBaselineElapsedNs) <= 0) return std::nullopt;
  Baseline b;
  b.elapsed_s = run.number(kBaselineElapsedNs) * 1e-9;
  b.cpu_s = run.number(kBaselineCpuNs) * 1e-9;
  for (const ThreadInfo& t : run.threads) b.profiled_cpu_s += static_cast<double>(t.cpu_ns) * 1e-9;
  if (!(b.cpu_s > 0) || !(b.profiled_cpu_s > 0)) return std::nullopt;  // nothing to scale by
  return b;
}

Quality quality_of(const Run& run) {
  Quality q;
  using namespace capture::run_keys;
  q.samples = static_cast<uint64_t>(run.number(kSamples));
  q.thread_samples = static_cast<uint64_t>(run.number(kThreadSamples));
  q.period_s = run.number(kPeriodNs) * 1e-9;
  q.period_longest_s = run.number(kPeriodLongestNs) * 1e-9;
  q.snapshots_due = static_cast<uint64_t>(run.number(kSnapshotsDue));
  q.snapshots_late = static_cast<uint64_t>(run.number(kSnapshotsLate));
  q.snapshots_lost = static_cast<uint64_t>(run.number(kSnapshotsLost));
  q.sampler_priority = run.text(kSamplerPriority);
  q.walk_s = run.number(kSnapshotWalkNs) * 1e-9;
  q.torn_rate = run.torn_rate();
  q.dilation_removed_s = run.number(kDilationRemovedNs) * 1e-9;
  q.hook_pair_ns = run.number(kHookPairNs);
  q.patched_entries = static_cast<uint64_t>(run.number(kPatchedEntries));
  q.procedure_patterns = run.text(kProcedurePatterns);
  q.budget_percent = static_cast<uint32_t>(run.number(kBudgetPercent));
  q.unpatched = unpatched_procedures(run);
  q.cost_trials = static_cast<uint64_t>(run.number(kCostTrials));
  q.entry_windows = static_cast<uint64_t>(run.number(kEntryWindows));
  q.window_reads = static_cast<uint64_t>(run.number(kWindowReads));
  q.sampler_cpu_s = run.number(kSamplerCpuNs) * 1e-9;
  if (run.info.count(kOtherCpuNs)) q.other_cpu_s = run.number(kOtherCpuNs) * 1e-9;
  q.reserved_core = run.text(kReserve) == "yes";
  q.cpu_measurement = run.text(kCpuMeasurement);
  q.openmp = run.text(kOpenmp);
  q.itt = run.text(kItt);
  q.baseline = baseline_of(run);
  q.dropped = static_cast<uint64_t>(run.number(kObjectsDropped) + run.number(kCallsDropped) +
                                    run.number(kContextsDropped));
  for (const ThreadInfo& t : run.threads) {
    q.stack_overflows += t.stack_overflows;
    q.unmatched_exits += t.unmatched_exits;
  }
  q.final = run.final;
  if (run.info.count(kCountsElapsedNs)) q.counts_elapsed_s = run.number(kCountsElapsedNs) * 1e-9;
  q.traced = run.info.count(kTraceEvents) > 0;
  q.trace_events = static_cast<uint64_t>(run.number(kTraceEvents));
  q.trace_dropped = static_cast<uint64_t>(run.number(kTraceDropped));
  q.trace_bytes = static_cast<uint64_t>(run.number(kTraceBytes));
  q.limits_reached = limits_reached(run, q);
  return q;
}

Starvation starvation_of(const Run& run) {
  using namespace capture::run_keys;
  Starvation s;
  s.measured = run.info.count(kStarvedStartupNs) > 0;
  s.startup_s = run.number(kStarvedStartupNs) * 1e-9;
  s.between_s = run.number(kStarvedBetweenNs) * 1e-9;
  s.winddown_s = run.number(kStarvedWinddownNs) * 1e-9;
  if (run.info.count(kFirstFullNs)) s.first_full_s = run.number(kFirstFullNs) * 1e-9;
  if (run.info.count(kLastFullNs)) s.last_full_s = run.number(kLastFullNs) * 1e-9;
  return s;
}

}  // namespace quartz::analysis
