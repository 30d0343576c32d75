// JSON output of names that are not UTF-8 (a program in a Latin-1 directory, a thread named
// with arbitrary bytes): found by fuzz/capture_fuzzer, where `quartz report --json` ended
// with nlohmann's "invalid UTF-8 byte" instead of a report. A JSON parser must read the
// output, with U+FFFD where a byte was invalid.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/prediction_json.h"
#include "analysis/profile_view.h"
#include "analysis/report.h"

namespace quartz::analysis {
namespace {

// An all-zero record of a run on one processor, of the lengths a capture gives.
profile::FullRecord empty_record(const profile::Run& run) {
  profile::FullRecord r;
  for (auto* bins :
       {&r.processor_self, &r.processor_behalf, &r.normalized_self, &r.normalized_behalf}) {
    bins->assign(run.processors + 1, 0.0);
  }
  for (auto& runnable : r.runnable) runnable.assign(run.runnable_bins, 0.0);
  return r;
}

TEST(ReportJson, NamesThatAreNotUtf8) {
  profile::Run run;
  run.info[capture::run_keys::kProgram] = "/home/caf\xe9/app";
  run.program = empty_record(run);
  profile::ThreadInfo thread;
  thread.name = "worker\xff";
  thread.record = empty_record(run);
  run.threads.push_back(thread);
  std::ostringstream out;
  print_json_report(out, analyze(run));
  const auto json = nlohmann::json::parse(out.str());
  EXPECT_EQ(json["program"], "/home/caf\xEF\xBF\xBD/app");
  EXPECT_EQ(json["threads"][0]["name"], "worker\xEF\xBF\xBD");
}

TEST(PredictionJson, NamesThatAreNotUtf8) {
  Predictions predictions;
  predictions.critical_path.threads.push_back({"worker\xff", 1.0});
  const auto json = nlohmann::json::parse(predictions_json(predictions));
  EXPECT_NE(json.dump().find("worker\xEF\xBF\xBD"), std::string::npos);
}

// A model the recording ruled out is stored as such and read back: the stored range's ends
// are named without it.
TEST(PredictionJson, AModelRuledOutByTheRecordingIsReadBackSo) {
  Predictions p;
  p.observed_s = p.recorded_s = 1.0;
  p.models = {{"barging", 1.0}, {"fair", 1.1}, {"slices+barging", 4.0, true}};
  p.recorded_range = range_over(std::vector<double>{1.0, 1.1, 4.0}, {false, false, true});
  const std::string text = predictions_json(p);
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["models"][2]["contradicted"], true);
  EXPECT_EQ(json["recorded_range"]["high_model"], "fair");
  const Predictions back = predictions_from_json(text);
  ASSERT_EQ(back.models.size(), 3u);
  EXPECT_FALSE(back.models[1].contradicted);
  EXPECT_TRUE(back.models[2].contradicted);
  EXPECT_DOUBLE_EQ(back.recorded_range.high_s, 1.1 * (1 + kResidualError));
}

// A model counting in the recorded configuration's range only is stored as such: its figure
// names the recorded range's end, not a what-if's.
TEST(PredictionJson, AModelOfTheRecordedOrderIsReadBackSo) {
  Predictions p;
  p.observed_s = p.recorded_s = 1.0;
  p.models = {{"barging", 1.0}, {"fair", 1.1, false, true}};
  p.recorded_range = range_over(std::vector<double>{1.0, 1.1});
  p.groupings = {{"0|1", "main | 1", 0.6, range_over(std::vector<double>{0.6}), "", 0}};
  const std::string text = predictions_json(p);
  const auto json = nlohmann::json::parse(text);
  EXPECT_EQ(json["models"][1]["recorded_only"], true);
  EXPECT_EQ(json["recorded_range"]["high_model"], "fair");
  EXPECT_EQ(json["groupings"][0]["high_model"], "barging");
  const Predictions back = predictions_from_json(text);
  ASSERT_EQ(back.models.size(), 2u);
  EXPECT_FALSE(back.models[0].recorded_only);
  EXPECT_TRUE(back.models[1].recorded_only);
  auto old = json;
  old["models"][1].erase("recorded_only");
  EXPECT_FALSE(predictions_from_json(old.dump()).models[1].recorded_only);
}

// The check's replay beside the sampler and the what-ifs' base alone are stored apart; a
// prediction stored before the two were told apart reads its one replay as both.
TEST(PredictionJson, TheReplayAloneIsStoredBesideTheCheck) {
  Predictions p;
  p.observed_s = 1.0;
  p.recorded_s = 0.98;
  p.base_s = 0.95;
  p.sampler_share = 0.03;
  const Predictions back = predictions_from_json(predictions_json(p));
  EXPECT_DOUBLE_EQ(back.recorded_s, 0.98);
  EXPECT_DOUBLE_EQ(back.base_s, 0.95);
  EXPECT_DOUBLE_EQ(back.sampler_share, 0.03);
  auto old = nlohmann::json::parse(predictions_json(p));
  old.erase("base_s");
  old.erase("sampler_share");
  const Predictions older = predictions_from_json(old.dump());
  EXPECT_DOUBLE_EQ(older.base_s, 0.98);
  EXPECT_DOUBLE_EQ(older.sampler_share, 0);
}

// A grouping that splits a task pool is stored with the pool and the figure of its threads
// keeping their tasks, which its note names; older predictions read back without.
TEST(PredictionJson, ASplitPoolIsStoredWithTheGrouping) {
  Predictions p;
  p.models = {{"barging", 1.0}};
  p.groupings = {{"0,1|2,3", "main,1 | 2,3", 0.30, range_over(std::vector<double>{0.30}),
                  "pool_worker 1,2,3", 0.39}};
  const Predictions back = predictions_from_json(predictions_json(p));
  ASSERT_EQ(back.groupings.size(), 1u);
  EXPECT_EQ(pool_note(back.groupings[0]),
            "pool_worker 1,2,3 split over processors: replayed with whichever is free taking the "
            "next task (390.00 ms if each keeps the tasks it ran)");
  auto old = nlohmann::json::parse(predictions_json(p));
  old["groupings"][0].erase("split_pools");
  old["groupings"][0].erase("pinned_s");
  const Predictions older = predictions_from_json(old.dump());
  EXPECT_EQ(older.groupings[0].split_pools, "");
  EXPECT_DOUBLE_EQ(older.groupings[0].pinned_s, 0);
  EXPECT_EQ(pool_note(older.groupings[0]), "");
}

}  // namespace
}  // namespace quartz::analysis
