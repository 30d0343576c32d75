// overhead/cost_trial.h on hand-built phases whose answers are worked out by hand.
#include "overhead/cost_trial.h"

#include <gtest/gtest.h>

namespace quartz::sampler {
namespace {

constexpr uint64_t kMs = 1'000'000;

// Runs a trial through its eight phases of 10 ms of processor time each: the other entries
// get `pace_on` calls a ms with the entry on (and it `tried_on`), `pace_off` with it off.
double trial(uint64_t pace_on, uint64_t pace_off, uint64_t tried_on) {
  CostTrial t;
  PaceReading now{5000, 70000, 300 * kMs};  // counts before the trial
  t.start(0x1000, now);
  for (uint32_t p = 0; p < CostTrial::kPhases; ++p) {
    EXPECT_TRUE(t.running());
    const bool on = CostTrial::entry_on(p);
    now.other_calls += 10 * (on ? pace_on : pace_off);
    now.tried_calls += on ? tried_on : 0;
    now.cpu_ns += 10 * kMs;
    EXPECT_EQ(t.end_phase(now), p + 1 == CostTrial::kPhases);
  }
  EXPECT_FALSE(t.running());
  return t.call_ns();
}

TEST(CostTrial, PhasesGoOnOffOffOnOnOffOffOn) {
  const bool expected[] = {true, false, false, true, true, false, false, true};
  for (uint32_t p = 0; p < CostTrial::kPhases; ++p) EXPECT_EQ(CostTrial::entry_on(p), expected[p]);
}

TEST(CostTrial, TheTimeTheProgramLosesWithTheEntryOnIsItsCallsCost) {
  // Off: 200 calls a ms. On: 100 a ms, so in 40 ms on the program did what takes 20 ms off;
  // the other 20 ms went to 4 x 50,000 calls: 100 ns a call.
  EXPECT_DOUBLE_EQ(trial(100, 200, 50'000), 100.0);
}

TEST(CostTrial, NoDifferenceInPaceTellsNothing) {
  EXPECT_LT(trial(150, 150, 50'000), 0);
}

// A trial through its eight phases of 10 ms of processor time each, the other entries
// getting `paces[p]` calls a ms in phase p, the entry tried 50,000 calls a phase it is on.
CostTrial trial_of(const uint64_t (&paces)[CostTrial::kPhases]) {
  CostTrial t;
  PaceReading now{};
  t.start(0x1000, now);
  for (uint32_t p = 0; p < CostTrial::kPhases; ++p) {
    now.other_calls += 10 * paces[p];
    now.tried_calls += CostTrial::entry_on(p) ? 50'000 : 0;
    now.cpu_ns += 10 * kMs;
    t.end_phase(now);
  }
  return t;
}

TEST(CostTrial, PhasesThatDisagreeTellNothing) {
  // Off faster in every phase but one: the one on phase as fast as the off ones.
  const CostTrial t = trial_of({100, 200, 200, 100, 210, 200, 200, 100});
  EXPECT_LT(t.call_ns(), 0);
  // Taken together: on, 5100 calls in 40 ms; off, 8000 in 40 ms. At the off pace the on
  // phases' work takes 25.5 ms; the other 14.5 ms went to 200,000 calls: 72.5 ns a call.
  EXPECT_DOUBLE_EQ(t.mean_call_ns(), 72.5);
  // Each state kept its pace within 2.1 (on: 100 to 210), over kSteadySpread.
  EXPECT_FALSE(t.steady());
}

TEST(CostTrial, OnePaceInEachStateIsSteady) {
  // minimap2's mm_idx_get, as its trial read it: on 0.51-0.53 calls a us, off 0.59-0.60.
  const CostTrial t = trial_of({522, 596, 586, 533, 523, 604, 599, 508});
  EXPECT_TRUE(t.steady());
  EXPECT_GT(t.call_ns(), 0);
}

TEST(CostTrial, ATrialAcrossAChangeInWhatTheProgramDoesIsNotSteady) {
  // minimap2 going from indexing to mapping in the middle of a trial: no calls into the
  // other entries, then 1.5 to 8 a us. The off phases of the second half are slower than
  // the on ones of the first: nothing is told, and nothing of the entry either.
  const CostTrial t = trial_of({0, 0, 0, 0, 1550, 5478, 7178, 8192});
  EXPECT_LT(t.call_ns(), 0);
  EXPECT_FALSE(t.steady());
}

TEST(CostTrial, TooFewCallsToReadThePaceTellNothing) {
  // 9 calls a ms: 90 a phase, under kMinPhaseCalls.
  EXPECT_LT(trial(9, 18, 50'000), 0);
}

TEST(CostTrial, AnUnfinishedTrialTellsNothing) {
  CostTrial t;
  t.start(0x1000, PaceReading{});
  t.end_phase(PaceReading{1000, 0, 10 * kMs});
  EXPECT_TRUE(t.running());
  EXPECT_LT(t.call_ns(), 0);
}

}  // namespace
}  // namespace quartz::sampler
