// Ranges over scheduler models and the verdict on groupings (prediction_range.h,
// prediction.h best_grouping), on figures made up for each case.
#include "analysis/prediction_range.h"

#include <gtest/gtest.h>

#include "analysis/model_replays.h"
#include "analysis/prediction.h"
#include "analysis/scheduler_model.h"
#include "analysis/trust_warnings.h"

namespace quartz::analysis {
namespace {

TEST(PredictionRange, SpansTheModelsWidenedByTheResidualError) {
  const std::vector<double> by_model{1.0, 0.9, 1.2, 0.5};
  const PredictionRange r = range_over(by_model);
  EXPECT_DOUBLE_EQ(r.low_s, 0.5 * (1 - kResidualError));
  EXPECT_DOUBLE_EQ(r.high_s, 1.2 * (1 + kResidualError));
  EXPECT_EQ(r.by_model_s, by_model);  // every model's figure kept, the most likely first
  EXPECT_NEAR(relative_width(1.0, r), 1.2 * 1.03 - 0.5 * 0.97, 1e-12);
  // One model, or all agreeing: the residual error alone, around the most likely figure.
  const PredictionRange alone = range_over(std::vector<double>{2.0});
  EXPECT_DOUBLE_EQ(alone.low_s, 2.0 * (1 - kResidualError));
  EXPECT_DOUBLE_EQ(alone.high_s, 2.0 * (1 + kResidualError));
  EXPECT_NEAR(relative_width(2.0, alone), 2 * kResidualError, 1e-12);
  const PredictionRange none = range_over(std::vector<double>{});
  EXPECT_DOUBLE_EQ(none.low_s, 0);
  EXPECT_DOUBLE_EQ(relative_width(0, none), 0);
}

// A range names the models at its ends; one too wide to decide (issue 38: a range as wide as
// the choices decides nothing) says why: the parts of the scheduler those two differ in.
TEST(PredictionRange, AWideRangeNamesItsEndsAndWhyTheyDiffer) {
  const std::vector<ModelCheck> models{
      {"barging"}, {"fair"}, {"slices+barging"}, {"slices+instant_wake+wake_to_last+no_pull"}};
  const PredictionRange narrow = range_over(std::vector<double>{1.0, 1.05, 0.98, 1.02});
  const RangeSpan n = range_span(1.0, narrow, models);
  EXPECT_EQ(n.low_model, "slices+barging");
  EXPECT_EQ(n.high_model, "fair");
  EXPECT_DOUBLE_EQ(n.low_model_s, 0.98);
  EXPECT_DOUBLE_EQ(n.high_model_s, 1.05);
  EXPECT_EQ(n.why, "");  // 12.9% wide: it decides
  const RangeSpan mutexes = range_span(1.0, range_over(std::vector<double>{1.0, 1.3}), models);
  EXPECT_EQ(mutexes.why, "who gets a free mutex");
  const RangeSpan most =
      range_span(1.0, range_over(std::vector<double>{1.0, 1.0, 1.0, 1.4}), models);
  EXPECT_EQ(most.low_model, "barging");  // the first of equal figures
  EXPECT_EQ(most.why,
            "sharing a processor, wake-ups, placement in a pool, balancing, who gets "
            "a free mutex");
  // Stored under names this version does not know: its ends, and a why that says little.
  const std::vector<ModelCheck> old{{"gone"}, {"fair"}};
  EXPECT_EQ(range_span(1.0, range_over(std::vector<double>{1.0, 1.5}), old).why,
            "their scheduling");
  // More figures than names (a stored range without its models): nothing said.
  EXPECT_EQ(range_span(1.0, range_over(std::vector<double>{1.0, 1.5}), {}).low_model, "");
}

// A procedure change moves its answer in proportion to the procedure's time, which the
// sampler counted give or take a bound (sampling_error.h): its range moves out by the same
// share of the change, at most the whole change.
TEST(PredictionRange, AProcedureChangeIsWidenedByItsSampledTime) {
  const std::vector<ModelCheck> models{{"barging"}, {"fair"}};
  PredictionRange r = range_over(std::vector<double>{0.40, 0.41});
  const double low = r.low_s, high = r.high_s;
  // 0.5 s counted in the procedure, give or take 0.02 s; zeroing it took 0.4 s off.
  widen_by_sampling(r, 0.8 - 0.4, 0.5, 0.02);
  EXPECT_DOUBLE_EQ(r.sampling_s, 0.016);
  EXPECT_DOUBLE_EQ(r.low_s, low - 0.016);
  EXPECT_DOUBLE_EQ(r.high_s, high + 0.016);
  // 0.372-0.4383 s: 16.6% wide: it still decides.
  EXPECT_EQ(wide_reason(0.4, r, models), "");
  PredictionRange far = range_over(std::vector<double>{0.40, 0.41});
  widen_by_sampling(far, 0.4, 0.1, 0.2);  // a count off by more than itself: the whole change
  EXPECT_DOUBLE_EQ(far.sampling_s, 0.4);
  EXPECT_DOUBLE_EQ(far.low_s, 0);
  EXPECT_EQ(range_span(0.4, far, models).why, "");  // the models agree
  EXPECT_EQ(wide_reason(0.4, far, models),
            "the procedure's time as sampled, ±400.00 ms (a shorter --period-us narrows it)");
  PredictionRange both = range_over(std::vector<double>{0.4, 0.6});
  widen_by_sampling(both, 0.4, 0.5, 0.05);
  EXPECT_EQ(wide_reason(0.4, both, models),
            "barging 400.00 ms to fair 600.00 ms, which differ in who gets a free mutex; and the "
            "procedure's time as sampled, ±40.00 ms (a shorter --period-us narrows it)");
  PredictionRange none = range_over(std::vector<double>{0.4});
  widen_by_sampling(none, 0.4, 0, 0.05);  // nothing counted: nothing to widen by
  EXPECT_DOUBLE_EQ(none.sampling_s, 0);
}

// A model whose replay of the recording is more than 25% off the recorded time is ruled
// out by it (issue 38 item 3): shown, in no range. The most likely model always counts.
// (dedup's fourth model replayed 0.95 s as 4.2 s: its ranges were 390% wide.)
TEST(PredictionRange, AModelTheRecordingRulesOutWidensNoRange) {
  const std::vector<double> recorded{0.70, 1.2, 1.3, 0.74};
  const std::vector<bool> left_out = contradicted_models(recorded, 1.0);
  EXPECT_EQ(left_out, (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(contradicted_models(recorded, 0), (std::vector<bool>(4, false)));
  const PredictionRange r = range_over(std::vector<double>{1.0, 1.1, 4.0, 0.5}, left_out);
  EXPECT_DOUBLE_EQ(r.low_s, 1.0 * (1 - kResidualError));
  EXPECT_DOUBLE_EQ(r.high_s, 1.1 * (1 + kResidualError));
  EXPECT_EQ(r.by_model_s.size(), 4u);  // every model's figure still shown
  const std::vector<ModelCheck> models{
      {"barging", 0.70}, {"fair", 1.2}, {"slices+barging", 1.3, true}, {"turns", 0.74, true}};
  const RangeSpan span = range_span(1.0, r, models);
  EXPECT_EQ(span.low_model, "barging");
  EXPECT_EQ(span.high_model, "fair");
  EXPECT_EQ(span.why, "");  // 16% wide
  EXPECT_EQ(models_counted(models), "2 of 4");
  EXPECT_EQ(models_counted(std::vector<ModelCheck>{{"barging"}, {"fair"}}), "2");
}

// The recorded lock order is the recording's own: where the most likely model barges, a
// model keeping that order counts in the recorded configuration's range and in no what-if's.
// (lock_contention's barging replays of its recording ran 8-12% short of the recorded time,
// the recorded order's 2-3%; groupings under it were 10-54% off, unequal_workers' 0,1,4|*.)
TEST(PredictionRange, TheRecordedLockOrderCountsInTheRecordedConfigurationOnly) {
  EXPECT_EQ(recorded_configuration_only(scheduler_models_named("barging,turns+barging,fair")),
            (std::vector<bool>{false, false, true}));
  EXPECT_EQ(recorded_configuration_only(scheduler_models_named("barging,fair,slices+barging")),
            (std::vector<bool>{false, true, false}));
  // The most likely keeping the order: every model counts everywhere.
  EXPECT_EQ(recorded_configuration_only(scheduler_models_named("fair,barging,slices")),
            (std::vector<bool>(3, false)));
  const std::vector<ModelCheck> models{{"barging", 1.0}, {"fair", 1.2, false, true}};
  const PredictionRange r = range_over(std::vector<double>{1.0, 1.2});
  EXPECT_EQ(range_span(1.0, r, models).high_model, "barging");
  EXPECT_EQ(range_span(1.0, r, models, true).high_model, "fair");
}

// A what-if is not replayed under the models listed last that count in the recorded
// configuration's range only; the recorded configuration is, and its range counts them.
TEST(PredictionRange, AWhatIfIsNotReplayedUnderTheRecordedOrder) {
  const std::vector<SchedulerModel> models = scheduler_models_named("barging,fair");
  ModelReplays replays(models);
  replays.add(threads_grouped({0, 1}));
  EXPECT_EQ(replays.configs().size(), 1u);
  replays.add_recorded(threads_sharing(2, 2));
  EXPECT_EQ(replays.configs().size(), 3u);
  replays.leave_out({false, false});
  EXPECT_EQ(replays.left_out(), (std::vector<bool>{false, true}));
  EXPECT_EQ(replays.contradicted(), (std::vector<bool>{false, false}));
  ReplayPass pass;
  pass.results.resize(3);
  pass.results[0].elapsed_ns = 1e9;
  pass.results[1].elapsed_ns = 2e9;
  pass.results[2].elapsed_ns = 3e9;
  EXPECT_EQ(replays.seconds(pass, 0), std::vector<double>{1.0});
  EXPECT_DOUBLE_EQ(replays.range(pass, 1).high_s, 2.0 * (1 + kResidualError));
  EXPECT_DOUBLE_EQ(replays.range_as_recorded(pass, 1).high_s, 3.0 * (1 + kResidualError));
}

TEST(PredictionRange, OnlyRangesThatDoNotOverlapSeparate) {
  EXPECT_TRUE(ranges_separate({1.0, 0.9, 1.1}, {1.3, 1.2, 1.4}));
  EXPECT_FALSE(ranges_separate({1.0, 0.9, 1.1}, {1.3, 1.1, 1.4}));  // touching: not told apart
  EXPECT_FALSE(ranges_separate({1.0, 0.9, 1.1}, {1.05, 1.0, 1.05}));
  const std::vector<RangedFigure> ordered{{1.0, 0.9, 1.1}, {1.2, 1.05, 1.3}, {1.5, 1.4, 1.6}};
  EXPECT_EQ(indistinguishable_from_first(ordered), 2u);
  EXPECT_EQ(indistinguishable_from_first(std::span(ordered).subspan(2)), 1u);
  EXPECT_EQ(indistinguishable_from_first({}), 0u);
}

// The recorded time outside its own configuration's range is a caution when the miss is
// beyond the noise of an elapsed time (1%), said to the point.
TEST(PredictionRange, TheRecordedTimeJustOutsideItsRangeIsNoCaution) {
  auto reasons = [](double observed_s) {
    Predictions p;
    p.observed_s = observed_s;
    p.models = {{"barging", 2.310}, {"fair", 2.312}};
    p.recorded_s = 2.310;
    p.recorded_range = range_over(std::vector<double>{2.310, 2.312});  // 2.2407-2.3814 s
    std::vector<std::string> out;
    for (const TrustWarning& w : trust_warnings(p)) out.push_back(w.reason + ": " + w.text);
    return out;
  };
  EXPECT_TRUE(reasons(2.387).empty());  // minimap2's recording: 0.2% above
  EXPECT_TRUE(reasons(2.222).empty());  // 0.8% below
  const std::vector<std::string> above = reasons(2.45);
  ASSERT_EQ(above.size(), 1u);
  EXPECT_EQ(above[0].substr(0, above[0].find(':', 15)),
            "outside_range: the recorded time is 3% above the range its own configuration "
            "replays to");
  ASSERT_EQ(reasons(2.15).size(), 1u);  // 4% below
}

// A critical path mostly off the processor bounds every answer: said, with how much.
TEST(PredictionRange, ACriticalPathMostlyOffTheProcessorIsACaution) {
  Predictions p;
  p.observed_s = p.recorded_s = 0.92;
  p.critical_path.length_s = 0.92;
  p.critical_path.cpu_s = 0.005;
  p.critical_path.delay_s = 0.915;  // a thread waiting in the kernel all along
  const std::vector<TrustWarning> said = trust_warnings(p);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].reason, "path_off_processor");
  EXPECT_EQ(said[0].text.substr(0, 43), "99% of the critical path (915.00 ms) is tim");
  p.critical_path.cpu_s = 0.47;
  p.critical_path.delay_s = 0.45;  // under half
  EXPECT_TRUE(trust_warnings(p).empty());
}

// A change of a procedure whose entry the budget turned off leaves out its time since:
// said, with when and what to record instead.
TEST(PredictionRange, AChangedProcedureTurnedOffByTheBudgetIsACaution) {
  Predictions p;
  p.observed_s = p.recorded_s = 2.0;
  p.procedures.push_back({"zero", "hc_find_func", 100, 1.9, 0, {}, 0.58});
  const std::vector<TrustWarning> said = trust_warnings(p);
  ASSERT_EQ(said.size(), 1u);
  EXPECT_EQ(said[0].reason, "procedure_turned_off");
  EXPECT_EQ(said[0].text,
            "hc_find_func's entry was turned off by the overhead budget 580.00 ms into the run: "
            "its time since is its callers' in the trace, so the change leaves that out; record "
            "with --procedures 'hc_find_func' (or --budget 0) to ask about it");
  p.procedures[0].turned_off_s.reset();
  EXPECT_TRUE(trust_warnings(p).empty());
}

GroupingPrediction grouping(const char* spec, double likely_s, double low_s, double high_s) {
  GroupingPrediction g{spec, spec, likely_s, {}, {}, 0};
  g.range.low_s = low_s;
  g.range.high_s = high_s;
  g.range.by_model_s = {likely_s};
  return g;
}

TEST(PredictionRange, TheBestGroupingIsCalledBestOnlyWhenItsRangeSeparatesIt) {
  // Listed as asked, not by speed: the fastest most likely is the second.
  const std::vector<GroupingPrediction> apart{grouping("a", 1.0, 0.95, 1.05),
                                              grouping("b", 0.6, 0.55, 0.70),
                                              grouping("c", 0.8, 0.72, 0.90)};
  BestGrouping b = best_grouping(apart);
  EXPECT_EQ(b.best, 1u);
  EXPECT_TRUE(b.tied.empty());
  // c's range reaches down into b's: not told apart, whichever is faster most likely.
  std::vector<GroupingPrediction> close = apart;
  close[2] = grouping("c", 0.8, 0.65, 0.90);
  b = best_grouping(close);
  EXPECT_EQ(b.best, 1u);
  EXPECT_EQ(b.tied, std::vector<size_t>{2});
  // The example: the range of the grouping one model makes fastest reaches under
  // the one the most likely model prefers.
  b = best_grouping({grouping("longest with shortest", 0.88, 0.55, 0.88),
                     grouping("two short | two long", 0.72, 0.70, 0.92)});
  EXPECT_EQ(b.best, 1u);
  EXPECT_EQ(b.tied, std::vector<size_t>{0});
  // One grouping: it is the best of one, and nothing is tied with it.
  b = best_grouping({grouping("only", 1.0, 0.9, 1.1)});
  EXPECT_EQ(b.best, 0u);
  EXPECT_TRUE(b.tied.empty());
}

}  // namespace
}  // namespace quartz::analysis
