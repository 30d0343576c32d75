// The overhead budget's decisions and its entry windows (overhead/), on a program of
// the test's own: its processor time, its calls and its entries are a model whose costs the
// test sets (a patched call's real cost among them), so each answer is worked out from the
// model, not read back from the budget.
#include "overhead/overhead_budget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "overhead/entry_windows.h"

namespace quartz::sampler {
namespace budget_test {  // its own names in a unity build
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kPeriodNs = 2 * kMs;
constexpr double kCallNs = 10;  // a patched call's calibrated cost
constexpr uintptr_t kMain = 0x1000, kLoop = 0x2000, kTiny = 0x3000, kOther = 0x4000,
                    kLookup = 0x5000, kHooked = 0x6000;

// A program of one thread. Procedures listed in `patched` have an entry (its address + 1);
// calls are counted on their edges while the callee's entry is on.
class ModelProgram final : public ProgramEntries {
 public:
  double cpu_ns() override { return cpu; }
  void visit_edges(EdgeVisit visit, void* context) override {
    for (const auto& [edge, calls] : edges) {
      visit(context, edge.first, edge.second, static_cast<uint64_t>(calls));
    }
  }
  uintptr_t entry_of(uintptr_t procedure) override {
    return patched.count(procedure) ? procedure + 1 : 0;
  }
  void switch_entries(const uintptr_t* sleds, size_t count, bool on) override {
    for (size_t i = 0; i < count; ++i) {
      switches.emplace_back(sleds[i] - 1, on);
      if (on) {
        off.erase(sleds[i] - 1);
      } else {
        off.insert(sleds[i] - 1);
      }
    }
  }
  bool turn_off(uintptr_t procedure) override {
    if (!patched.count(procedure)) return false;
    off.insert(procedure);
    turned_off.push_back(procedure);
    return true;
  }

  bool on(uintptr_t procedure) const { return patched.count(procedure) && !off.count(procedure); }
  // `calls` more from `caller` to `callee`, counted if the callee's entry is on.
  void call(uintptr_t caller, uintptr_t callee, double calls) {
    if (on(callee) || !patched.count(callee)) edges[{caller, callee}] += calls;
  }

  double cpu = 0;
  std::map<std::pair<uintptr_t, uintptr_t>, double> edges;
  std::set<uintptr_t> patched;
  std::set<uintptr_t> off;
  std::vector<uintptr_t> turned_off;
  std::vector<std::pair<uintptr_t, bool>> switches;  // (procedure, on), in order
};

class OverheadBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override { program.patched = {kMain, kLoop, kTiny, kOther, kLookup}; }
  void configure(uint32_t percent) {
    ASSERT_TRUE(budget.configure(program, percent, kCallNs, kPeriodNs));
    ASSERT_TRUE(budget.active());
  }
  std::vector<uintptr_t> decided() const {
    std::vector<uintptr_t> procedures;
    for (size_t i = 0; i < budget.unpatched().size(); ++i) {
      procedures.push_back(budget.unpatched()[i].procedure);
    }
    return procedures;
  }

  ModelProgram program;
  OverheadBudget budget;
};

// 20 ms in which `tiny` is called a million times: 10 ms of calls at 10 ns, far over a 5%
// budget of the program's own time. Nothing is decided before the first decision at 20 ms;
// then `tiny`, the costliest against its own time, is turned off, and `hot_loop`'s single
// call is left alone.
TEST_F(OverheadBudgetTest, TheFirstDecisionTurnsTheCostliestEntryOff) {
  configure(5);
  program.call(kMain, kLoop, 1);
  program.call(kLoop, kTiny, 1'000'000);
  program.cpu = 20 * kMs;
  budget.decide(19 * kMs);
  EXPECT_TRUE(decided().empty());
  budget.decide(20 * kMs);
  ASSERT_EQ(decided(), std::vector<uintptr_t>{kTiny});
  EXPECT_EQ(program.turned_off, std::vector<uintptr_t>{kTiny});
  const UnpatchedProcedure& tiny = budget.unpatched()[0];
  EXPECT_TRUE(tiny.off);
  EXPECT_EQ(tiny.calls, 1'000'000u);
  EXPECT_EQ(tiny.at_ns, 20 * kMs);
  EXPECT_EQ(budget.entries_off(), 1u);
}

// Calls that cost 0.5% of the program's time stay counted under a 5% budget.
TEST_F(OverheadBudgetTest, CallsWithinTheBudgetStayOn) {
  configure(5);
  program.call(kMain, kLoop, 1);
  program.call(kLoop, kTiny, 10'000);  // 0.1 ms of 20
  program.cpu = 20 * kMs;
  budget.decide(20 * kMs);
  EXPECT_TRUE(decided().empty());
  EXPECT_TRUE(program.turned_off.empty());
}

// The budget holds each interval between decisions (20, 50, 100, 200, 500 ms, then every
// 250), not the whole run: a phase that starts calling a new procedure heavily after a
// long quiet one is turned off at the next decision, though the run's calls in all are
// within the budget, and not before it.
TEST_F(OverheadBudgetTest, APhaseThatCallsANewProcedureIsHeldToTheBudgetAtTheNextDecision) {
  configure(5);
  program.call(kMain, kLoop, 1);
  program.cpu = 500 * kMs;  // quiet: no decision turns anything off
  for (uint64_t at : {20u, 50u, 100u, 200u, 500u}) budget.decide(at * kMs);
  EXPECT_TRUE(decided().empty());
  // 500-750 ms: 250 ms of processor time, 2 ms of it in 200,000 calls (0.8%, within 5%);
  // 750-1000 ms: 250 ms again, 20 ms of it in 2,000,000 calls (8%, over). Over the whole
  // run 22 ms of 1000 (2.2%).
  program.call(kLoop, kOther, 200'000);
  program.cpu = 750 * kMs;
  budget.decide(749 * kMs);  // not due
  budget.decide(750 * kMs);
  EXPECT_TRUE(decided().empty());
  program.call(kLoop, kOther, 2'000'000);
  program.cpu = 1000 * kMs;
  budget.decide(999 * kMs);
  EXPECT_TRUE(decided().empty());
  budget.decide(1000 * kMs);
  EXPECT_EQ(decided(), std::vector<uintptr_t>{kOther});
}

// A procedure with no entry to turn off (the compiler's hooks, an OpenMP region) is noted
// as decided but left counted; the next costliest is turned off in the same decision, and
// the one left counted is never considered again.
TEST_F(OverheadBudgetTest, AProcedureWithoutAnEntryIsNotedAndTheNextOneGoes) {
  configure(5);
  program.call(kMain, kLoop, 1);
  program.call(kLoop, kHooked, 2'000'000);  // not patched: costlier than tiny, nothing to turn off
  program.call(kLoop, kTiny, 1'000'000);
  program.cpu = 40 * kMs;
  budget.decide(20 * kMs);
  ASSERT_EQ(decided(), (std::vector<uintptr_t>{kHooked, kTiny}));
  EXPECT_FALSE(budget.unpatched()[0].off);
  EXPECT_TRUE(budget.unpatched()[1].off);
  EXPECT_EQ(program.turned_off, std::vector<uintptr_t>{kTiny});
  program.call(kLoop, kHooked, 2'000'000);
  program.cpu = 80 * kMs;
  budget.decide(50 * kMs);
  EXPECT_EQ(decided().size(), 2u);
}

// A patched call that costs the program 200 ns where the calibration says 10 (its calls
// keep the processor from overlapping the program's own loads). Per us of the program's own
// work it calls `other` once and `lookup` twice: `lookup`'s calls cost 1.43% of the program
// by the calibrated figure. Runs 200 ms of snapshots under a budget of `percent`, the
// sampler's order after each (a trial moves on, a decision when due), until a decision.
struct LookupRun {
  uint32_t trials;
  std::vector<std::pair<uintptr_t, bool>> switches;
  std::vector<UnpatchedProcedure> decided;
};
LookupRun run_lookups(uint32_t percent) {
  constexpr double kRealCallNs = 200;
  ModelProgram program;
  program.patched = {kMain, kOther, kLookup};
  OverheadBudget budget;
  EXPECT_TRUE(budget.configure(program, percent, kCallNs, kPeriodNs));
  uint64_t run_ns = 0;
  for (uint32_t snapshot = 1; snapshot <= 100 && budget.unpatched().size() == 0; ++snapshot) {
    const double own_ns = kPeriodNs / (program.on(kLookup) ? 1 + 2 * kRealCallNs / 1000 : 1);
    program.call(kMain, kOther, own_ns / 1000);
    program.call(kMain, kLookup, 2 * own_ns / 1000);
    program.cpu += kPeriodNs;
    run_ns += kPeriodNs;
    budget.note_sample(snapshot % 5 == 0 ? kLookup : kOther, kPeriodNs);
    budget.step_trial();
    budget.decide(run_ns);
  }
  LookupRun run{budget.trials(), program.switches, {}};
  for (size_t i = 0; i < budget.unpatched().size(); ++i)
    run.decided.push_back(budget.unpatched()[i]);
  return run;
}

// Under a 5% budget the calls are within it by the calibrated figure, so no decision turns
// the entry off; the trial after the first decision (of the entry called most) switches it
// off and on (on, off, off, on, on, off, off, on), reads the program's pace in each phase,
// measures 200 ns a call, and the decision after the trial turns the entry off: what its
// calls cost beyond the calibration falls in `lookup` itself, whose time it would inflate.
TEST(OverheadBudgetTrial, AnEntryCostingMoreThanCalibratedIsTriedAndTurnedOff) {
  const LookupRun run = run_lookups(5);
  EXPECT_EQ(run.trials, 1u);
  const std::vector<std::pair<uintptr_t, bool>> trial_switches{
      {kLookup, false}, {kLookup, true}, {kLookup, false}, {kLookup, true}};
  EXPECT_EQ(run.switches, trial_switches);
  ASSERT_EQ(run.decided.size(), 1u);
  EXPECT_EQ(run.decided[0].procedure, kLookup);
  EXPECT_TRUE(run.decided[0].off);
  EXPECT_NEAR(run.decided[0].call_ns, 200, 5);
  // The first decision at 20 ms, the trial's 8 phases of 5 snapshots, then the decision.
  EXPECT_EQ(run.decided[0].at_ns, 20 * kMs + 8 * 5 * kPeriodNs);
}

// A trial starts on an entry whose calls cost a tenth of the budget or more by the
// calibrated figure: at 9%, 1.43% is a sixth of it, and the entry is tried and turned off;
// at 20%, a fourteenth, it is not tried, and stays on.
TEST(OverheadBudgetTrial, AnEntryIsTriedFromATenthOfTheBudget) {
  const LookupRun sixth = run_lookups(9);
  EXPECT_EQ(sixth.trials, 1u);
  ASSERT_EQ(sixth.decided.size(), 1u);
  EXPECT_EQ(sixth.decided[0].procedure, kLookup);
  const LookupRun fourteenth = run_lookups(20);
  EXPECT_EQ(fourteenth.trials, 0u);
  EXPECT_TRUE(fourteenth.switches.empty());
  EXPECT_TRUE(fourteenth.decided.empty());
}

// Entry windows: once the budget has turned `tiny` off, a window opens before every 8th
// snapshot, turns tiny's entry on while it is open and off again after. Reads in windows
// that found the thread in tiny under `caller` three times and in `caller` itself once tell
// that a snapshot reading `caller` with the entry off stands for tiny three times in four.
TEST_F(OverheadBudgetTest, WindowsTellWhereUnderAContextTheTurnedOffProcedureWas) {
  configure(5);
  program.call(kMain, kLoop, 1);
  program.call(kLoop, kTiny, 1'000'000);
  program.cpu = 20 * kMs;
  budget.decide(20 * kMs);
  ASSERT_EQ(program.turned_off, std::vector<uintptr_t>{kTiny});

  ProfileTables tables;
  ASSERT_TRUE(tables.init(RecordShape{2, 9}, ProfileTables::Limits{1024, 256, 256, 256}));
  const uint32_t main_ctx = tables.context(kNone, kMain, capture::kProcedure);
  const uint32_t loop_ctx = tables.context(main_ctx, kLoop, capture::kProcedure);
  const uint32_t tiny_ctx = tables.context(loop_ctx, kTiny, capture::kProcedure);
  EntryWindows windows;
  ASSERT_TRUE(windows.init(1024));
  EXPECT_TRUE(windows.entries_off(budget));
  EXPECT_FALSE(windows.due(budget, 7));
  ASSERT_TRUE(windows.due(budget, 8));

  windows.open(budget);
  EXPECT_TRUE(program.on(kTiny));
  for (int i = 0; i < 3; ++i) windows.learn(tiny_ctx);
  windows.learn(loop_ctx);
  program.cpu += 1 * kMs;
  windows.close(budget);
  EXPECT_FALSE(program.on(kTiny));
  windows.update(tables, budget);

  uint32_t n = 0;
  const HiddenPart* parts = windows.parts().of(loop_ctx, &n);
  ASSERT_EQ(n, 2u);
  std::map<uint32_t, double> weight{{parts[0].context, parts[0].weight},
                                    {parts[1].context, parts[1].weight}};
  EXPECT_DOUBLE_EQ(weight[tiny_ctx], 0.75);
  EXPECT_DOUBLE_EQ(weight[loop_ctx], 0.25);
  EXPECT_EQ(windows.windows(), 1u);
  EXPECT_EQ(windows.reads(), 4u);
}

}  // namespace
}  // namespace budget_test
}  // namespace quartz::sampler
