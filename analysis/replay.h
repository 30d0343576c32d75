// One pass over a trace: read it a chunk at a time, turn records into steps, and replay the
// steps in every configuration at once (on several threads), freeing steps all replays
// have passed.
#pragma once

#include <memory>
#include <vector>

#include "analysis/simulation.h"
#include "analysis/trace_steps.h"
#include "profile/trace_reader.h"

namespace quartz::analysis {

struct ReplayPass {
  std::vector<SimulationResult> results;  // one per configuration, in order
  AssemblerTotals assembler;
  profile::TraceTotals trace;
  double seconds = 0;
};

// `workers`: threads that replay the configurations side by side (0: one per processor);
// the results do not depend on it.
ReplayPass replay_trace(std::unique_ptr<profile::TraceSource> source, uint32_t threads,
                        const AssemblerCosts& costs, std::vector<SimulationConfig> configs,
                        unsigned workers = 0);

}  // namespace quartz::analysis
