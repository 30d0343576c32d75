#include "analysis/replay.h"

#include <algorithm>
#include <chrono>

namespace quartz::analysis {

ReplayPass replay_trace(std::unique_ptr<profile::TraceSource> source, uint32_t threads,
                        const AssemblerCosts& costs, std::vector<SimulationConfig> configs) {
  const auto begin = std::chrono::steady_clock::now();
  profile::TraceReader reader(std::move(source));
  StepAssembler assembler(threads, costs);
  std::vector<std::unique_ptr<Simulation>> sims;
  for (auto& c : configs)
    sims.push_back(
        std::make_unique<Simulation>(std::move(c), assembler.logs(), assembler.attributions()));
  std::vector<profile::TraceRecord> chunk;
  while (reader.next_chunk(chunk)) {
    assembler.add(chunk);
    for (auto& s : sims) s->advance();
    for (uint32_t t = 0; t < assembler.logs().size(); ++t) {
      uint64_t keep = ~uint64_t{0};
      for (const auto& s : sims) keep = std::min(keep, s->position(t));
      assembler.logs()[t].trim(keep);
    }
  }
  assembler.finish();
  ReplayPass pass;
  for (auto& s : sims) {
    s->advance();
    pass.results.push_back(s->result());
  }
  pass.assembler = assembler.totals();
  pass.trace = reader.totals();
  pass.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return pass;
}

}  // namespace quartz::analysis
