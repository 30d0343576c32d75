// Where the calls' cost goes (profile/call_overhead.h), worked by hand on one processor: a
// loop `drive` calls `tiny` 15 million times through patched entries at 10 ns a call, and
// the sampler took 0.10 s out of drive's own time and 0.05 s out of tiny's, in proportion
// to what it sampled. A patched call's cost falls in its caller: drive paid all 0.15 s.
#include "profile/call_overhead.h"

#include <gtest/gtest.h>

namespace quartz::profile {
namespace {

constexpr uint64_t kDrive = 0x1000, kTiny = 0x2000;

FullRecord full(double self_s, double behalf_s) {
  FullRecord r;
  r.normalized_self = r.processor_self = {0, self_s};
  r.normalized_behalf = r.processor_behalf = {0, behalf_s};
  return r;
}

ContextInfo context(uint32_t id, uint32_t parent, uint64_t address, double self_s,
                    double call_cost_s) {
  ContextInfo c;
  c.id = id;
  c.parent = parent;
  c.address = address;
  c.record.normalized = c.record.processor = {0, self_s};
  c.record.call_cost = call_cost_s;
  return c;
}

Run loop_run(bool costs_known) {
  Run run;
  run.processors = 1;
  run.info[capture::run_keys::kHookPairNs] = "10";
  run.info[capture::run_keys::kPatchedEntries] = "2";
  run.call_costs_known = costs_known;
  run.procedures = {{kDrive, full(0.6, 0.4)}, {kTiny, full(0.4, 0)}};
  run.contexts = {context(0, capture::kNoParent, kDrive, 0.6, 0.10),
                  context(1, 0, kTiny, 0.4, 0.05)};
  run.edges = {{kDrive, kTiny, 15'000'000}};
  return run;
}

TEST(CallOverhead, TheCallsCostIsTakenWhereItFalls) {
  profile::Run run = loop_run(true);
  place_call_overhead(run);
  // drive measured 0.6 + 0.1 and paid 0.15: 0.55; tiny measured 0.4 + 0.05 and paid none.
  EXPECT_NEAR(run.contexts[0].record.processor[1], 0.55, 1e-12);
  EXPECT_NEAR(run.contexts[1].record.processor[1], 0.45, 1e-12);
  EXPECT_NEAR(run.contexts[1].record.normalized[1], 0.45, 1e-12);
  EXPECT_NEAR(run.procedures[0].record.processor_self[1], 0.55, 1e-12);
  EXPECT_NEAR(run.procedures[0].record.processor_behalf[1], 0.45, 1e-12);
  EXPECT_NEAR(run.procedures[1].record.processor_self[1], 0.45, 1e-12);
  EXPECT_NEAR(run.procedures[1].record.normalized_self[1], 0.45, 1e-12);
  // Applied once: a second call changes nothing.
  place_call_overhead(run);
  EXPECT_NEAR(run.contexts[0].record.processor[1], 0.55, 1e-12);
}

TEST(CallOverhead, ACaptureWithoutCallCostsIsLeftAsItIs) {
  profile::Run run = loop_run(false);
  place_call_overhead(run);
  EXPECT_EQ(run.contexts[0].record.processor[1], 0.6);
  EXPECT_EQ(run.procedures[1].record.processor_self[1], 0.4);
}

}  // namespace
}  // namespace quartz::profile
