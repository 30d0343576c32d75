// The streaming replay equals a whole-graph reference computation on random small traces,
// whatever the chunking; replaying the recorded configuration gives the recorded time.
#include <gtest/gtest.h>

#include <random>

#include "analysis/replay.h"
#include "tests/analysis/random_trace.h"
#include "tests/analysis/reference_replay.h"

namespace quartz::analysis {
namespace {

using test_support::TraceBytes;

std::vector<std::vector<Step>> whole_graph(const std::vector<unsigned char>& bytes,
                                           uint32_t threads) {
  profile::TraceReader reader(profile::trace_from_bytes(bytes, "t"));
  StepAssembler assembler(threads, AssemblerCosts{});
  std::vector<profile::TraceRecord> chunk;
  while (reader.next_chunk(chunk)) assembler.add(chunk);
  assembler.finish();
  std::vector<std::vector<Step>> steps;
  for (const StepLog& log : assembler.logs())
    steps.emplace_back(log.steps.begin(), log.steps.end());
  return steps;
}

TEST(Reference, StreamingReplayEqualsTheWholeGraphReplay) {
  std::mt19937 random(20261122);
  for (int trial = 0; trial < 300; ++trial) {
    const test_support::RandomProgram program = test_support::random_program(random);
    const uint32_t n = program.threads;
    std::vector<SimulationConfig> configs;
    SimulationConfig apart;
    for (uint32_t t = 0; t < n; ++t) {
      apart.group_of_thread.push_back(t);
      apart.cores.push_back(1);
    }
    configs.push_back(apart);
    for (double cores : {1.0, 2.0, 3.0}) {
      SimulationConfig shared;
      shared.group_of_thread.assign(n, 0);
      shared.cores = {cores};
      configs.push_back(shared);
    }
    SimulationConfig grouped;
    const uint32_t groups = 1 + std::uniform_int_distribution<uint32_t>(0, n - 1)(random);
    for (uint32_t t = 0; t < n; ++t) {
      grouped.group_of_thread.push_back(
          std::uniform_int_distribution<uint32_t>(0, groups - 1)(random));
    }
    grouped.cores.assign(groups, 1);
    configs.push_back(grouped);

    const size_t per_chunk = 1 + std::uniform_int_distribution<size_t>(0, 40)(random);
    TraceBytes bytes;
    bytes.chunks(program.records, per_chunk);
    bytes.end();
    const ReplayPass pass =
        replay_trace(profile::trace_from_bytes(bytes.bytes(), "t"), n, AssemblerCosts{}, configs);
    const auto steps = whole_graph(bytes.bytes(), n);
    EXPECT_NEAR(pass.results[0].elapsed_ns / 1e6, program.elapsed_ms, 1e-6) << "trial " << trial;
    for (size_t c = 0; c < configs.size(); ++c) {
      const double reference = test_support::reference_replay(steps, configs[c]);
      EXPECT_NEAR(pass.results[c].elapsed_ns, reference, 1e-3 + 1e-9 * reference)
          << "trial " << trial << ", configuration " << c << ", chunks of " << per_chunk;
      EXPECT_EQ(pass.results[c].forced_waits, 0u) << "trial " << trial << ", configuration " << c;
    }
  }
}

}  // namespace
}  // namespace quartz::analysis
