// End-to-end: `quartz compare` (issue 11 item 3) on series of runs of the imbalance sample
// with two threads on two processors, whose elapsed time is its work: the same build run
// again changes nothing beyond noise, and a flag that adds 20% to the work is found, named
// in the procedure that does it, and fails a 10% performance gate. The truth is each
// program's own wall clock (`elapsed_s`, printed by the program).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <numeric>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
const std::string kQuartz = std::string(QUARTZ_BIN_DIR) + "/quartz";

class Compare : public ScratchTest {
 protected:
  // Runs the sample `n` times with `unit_ms` of work per unit; returns the run numbers
  // ("4,5,6") and adds the program's own elapsed times to `elapsed_s`.
  std::string series(int n, int unit_ms, std::vector<double>* elapsed_s) {
    std::string runs;
    for (int i = 0; i < n; ++i) {
      const CommandResult r = run_command({kQuartz, "run", "-q", "--store", store, "--",
                                           std::string(QUARTZ_SAMPLES_DIR) + "/imbalance",
                                           "--threads", "2", "--unit-ms", std::to_string(unit_ms)});
      EXPECT_EQ(r.exit_code, 0) << r.err;
      elapsed_s->push_back(std::stod(printed_values(r.out).at("elapsed_s")));
      runs += (runs.empty() ? "" : ",") + std::to_string(++stored_);
    }
    return runs;
  }
  CommandResult compare(const std::string& a, const std::string& b,
                        const std::vector<std::string>& flags = {}) {
    std::vector<std::string> argv{kQuartz, "compare", "--store", store, "--json", a, b};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return run_command(argv);
  }
  int stored_ = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

TEST_F(Compare, FindsAFlagsSlowdownAndNothingInARerun) {
  constexpr int kRuns = 4;
  std::vector<double> own_a, own_again, own_slow;
  const std::string a = series(kRuns, 100, &own_a);
  const std::string again = series(kRuns, 100, &own_again);
  const std::string slow = series(kRuns, 120, &own_slow);

  const CommandResult rerun = compare(a, again, {"--fail-if-slower", "10"});
  EXPECT_EQ(rerun.exit_code, 0) << rerun.err;
  const json same = json::parse(rerun.out);
  EXPECT_TRUE(same["noise_includes_run_to_run"]);
  EXPECT_FALSE(same["elapsed"]["beyond_noise"]) << same["elapsed"].dump();
  EXPECT_TRUE(same["procedures"].empty()) << same["procedures"].dump(1);
  EXPECT_TRUE(same["appeared"].empty()) << same["appeared"].dump(1);
  EXPECT_TRUE(same["went_away"].empty()) << same["went_away"].dump(1);

  const CommandResult gate = compare(a, slow, {"--fail-if-slower", "10"});
  EXPECT_EQ(gate.exit_code, 1) << "a 20% slowdown fails a 10% gate";
  EXPECT_NE(gate.err.find("slower"), std::string::npos) << gate.err;
  const json slower = json::parse(gate.out);
  // The medians are the programs' own wall clocks', within a sampling period.
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  const double period_s = json::parse(report.out)["sampling"]["period_s"];
  EXPECT_NEAR(slower["elapsed"]["a_s"].get<double>(), median(own_a), period_s);
  EXPECT_NEAR(slower["elapsed"]["b_s"].get<double>(), median(own_slow), period_s);
  EXPECT_TRUE(slower["elapsed"]["beyond_noise"]) << slower["elapsed"].dump();
  ASSERT_FALSE(slower["procedures"].empty());
  bool named = false;
  for (const json& p : slower["procedures"]) named |= p["name"] == "do_share";
  EXPECT_TRUE(named) << "the procedure doing the added work: " << slower["procedures"].dump(1);
  EXPECT_EQ(compare(a, slow, {"--fail-if-slower", "30"}).exit_code, 0)
      << "a 20% slowdown passes a 30% gate";
}

TEST_F(Compare, BadRunsGiveOneLineAndStatusTwo) {
  std::vector<double> own;
  const std::string a = series(1, 20, &own);
  for (const auto& [x, y] :
       std::vector<std::pair<std::string, std::string>>{{a, "99"}, {a + ",", a}, {a, "x.qcap"}}) {
    const CommandResult r = compare(x, y);
    EXPECT_EQ(r.exit_code, 2) << x << " " << y;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace quartz::test
