// One pass over a trace: read it a chunk at a time, turn records into steps, and replay the
// steps in every configuration at once (on several threads), freeing steps all replays
// have passed.
#pragma once

#include <future>
#include <memory>
#include <vector>

#include "analysis/simulation.h"
#include "analysis/trace_steps.h"
#include "analysis/wake_latency.h"
#include "profile/trace_reader.h"

namespace quartz::analysis {

struct ReplayPass {
  std::vector<SimulationResult> results;  // one per configuration, in order
  AssemblerTotals assembler;
  // How the condition variables waited on and signalled were used (task_pools.h).
  std::vector<StepAssembler::ConditionUse> signalled_conditions;
  profile::TraceTotals trace;
  double seconds = 0;
};

// `workers`: threads that replay the configurations side by side (0: one per processor);
// the results do not depend on it. `wake`, when given, is the wake-up latency the
// configurations replay with (wake_latency_ns: its idle_ns), still being measured by a pass
// over the trace on a thread of its own: the trace is read and its steps assembled
// meanwhile, and the replays begin once it is known (or once kStepsHeldForTheLatency steps
// wait for them); the results are the same.
ReplayPass replay_trace(std::unique_ptr<profile::TraceSource> source, uint32_t threads,
                        const AssemblerCosts& costs, std::vector<SimulationConfig> configs,
                        unsigned workers = 0, std::shared_future<WakeLatency> wake = {});
// Steps held for the replays while the wake-up latency is measured, at most (40 bytes each).
inline constexpr uint64_t kStepsHeldForTheLatency = uint64_t{1} << 20;

}  // namespace quartz::analysis
