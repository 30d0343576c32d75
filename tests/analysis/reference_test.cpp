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

// Random programs per test; a sanitizer's tree runs a tenth of them (tests/testing).
constexpr int kTrials = QUARTZ_SANITIZED ? 30 : 300;

std::vector<std::vector<Step>> whole_graph(const std::vector<unsigned char>& bytes,
                                           uint32_t threads) {
  profile::TraceReader reader(profile::trace_from_bytes(bytes, "t"));
  StepAssembler assembler(threads, AssemblerCosts{});
  std::vector<profile::TraceRecord> chunk;
  while (reader.next_chunk(chunk)) assembler.add(chunk);
  assembler.finish();
  std::vector<std::vector<Step>> steps;
  for (const StepLog& log : assembler.logs()) {
    steps.emplace_back();
    for (uint64_t p = log.begin(); p < log.end(); ++p) steps.back().push_back(log.at(p));
  }
  return steps;
}

TEST(Reference, StreamingReplayEqualsTheWholeGraphReplay) {
  std::mt19937 random(20261122);
  for (int trial = 0; trial < kTrials; ++trial) {
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

// Every scheduler model (each way of sharing with every combination of modifiers) replays
// random programs to their end with no wait forced, the same in any chunking; with every
// thread on a processor of its own, how a processor is shared and where threads wake do
// not arise, so only the mutexes' order and the wake-up latency can change the answer.
TEST(Reference, EveryModelReplaysRandomProgramsToTheirEnd) {
  std::string names;
  for (const char* sharing : {"fair", "slices", "turns", "run_to_block"}) {
    for (int mask = 0; mask < 16; ++mask) {
      names += (names.empty() ? "" : ",") + std::string(sharing);
      const char* modifiers[] = {"instant_wake", "wake_to_last", "no_pull", "barging"};
      for (int m = 0; m < 4; ++m) {
        if (mask & (1 << m)) names += std::string("+") + modifiers[m];
      }
    }
  }
  const std::vector<SchedulerModel> models = scheduler_models_named(names);
  ASSERT_EQ(models.size(), 64u);
  std::mt19937 random(20261125);
  for (int trial = 0; trial < kTrials * 2 / 3; ++trial) {
    const test_support::RandomProgram program = test_support::random_program(random);
    const uint32_t n = program.threads;
    std::vector<SimulationConfig> configs;
    for (const SchedulerModel& model : models) {
      SimulationConfig apart = threads_apart(n);
      SimulationConfig pool = threads_sharing(n, 2);
      SimulationConfig one = threads_sharing(n, 1);
      for (SimulationConfig* c : {&apart, &pool, &one}) {
        c->model = model;
        c->wake_latency_ns = 0.5e6;
        configs.push_back(*c);
      }
    }
    std::vector<double> first_ns;
    for (size_t per_chunk : {size_t{1}, size_t{1} << 20}) {
      TraceBytes bytes;
      bytes.chunks(program.records, per_chunk);
      bytes.end();
      const ReplayPass pass =
          replay_trace(profile::trace_from_bytes(bytes.bytes(), "t"), n, AssemblerCosts{}, configs);
      for (size_t c = 0; c < configs.size(); ++c) {
        const std::string what = "trial " + std::to_string(trial) + ", " + configs[c].model.name +
                                 ", configuration " + std::to_string(c % 3) + ", chunks of " +
                                 std::to_string(per_chunk);
        EXPECT_EQ(pass.results[c].forced_waits, 0u) << what;
        EXPECT_GT(pass.results[c].elapsed_ns, 0) << what;
        if (first_ns.size() < configs.size()) {
          first_ns.push_back(pass.results[c].elapsed_ns);
        } else {
          EXPECT_NEAR(pass.results[c].elapsed_ns, first_ns[c], 1e-3 + 1e-9 * first_ns[c]) << what;
        }
      }
    }
    // Apart: a model equals the fair one with the same mutexes and wake-ups.
    for (size_t m = 0; m < models.size(); ++m) {
      SchedulerModel same;
      same.wake_latency = models[m].wake_latency;
      same.recorded_lock_order = models[m].recorded_lock_order;
      for (size_t o = 0; o < models.size(); ++o) {
        if (models[o].sharing != Sharing::fair || models[o].wake_latency != same.wake_latency ||
            models[o].recorded_lock_order != same.recorded_lock_order) {
          continue;
        }
        EXPECT_NEAR(first_ns[3 * m], first_ns[3 * o], 1e-3 + 1e-9 * first_ns[3 * o])
            << "trial " << trial << ", " << models[m].name << " against " << models[o].name;
      }
    }
  }
}

}  // namespace
}  // namespace quartz::analysis
