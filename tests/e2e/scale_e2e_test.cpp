// End-to-end: `quartz scale` (issue 11 item 2) on the imbalance sample, two threads with one
// and two units of work: on one processor its elapsed time is all the work, on two the
// longer thread's, and the processor time lost on two (the idle one while the longer
// thread finishes alone) is do_share's. The truth is what each program printed: its
// threads' own CPU clocks and its wall clock.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;

int allowed_processors() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

// What each run printed, in the order of the runs (its output went to standard error).
struct Printed {
  double elapsed_s = 0, threads_cpu_s = 0, longest_thread_cpu_s = 0;
};

std::vector<Printed> printed_runs(const std::string& err) {
  std::vector<Printed> runs;
  std::istringstream lines(err);
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq);
    const double value = std::strtod(line.c_str() + eq + 1, nullptr);
    if (key.rfind("thread_", 0) == 0) {
      if (runs.empty() || runs.back().elapsed_s > 0) runs.emplace_back();
      runs.back().threads_cpu_s += value;
      runs.back().longest_thread_cpu_s = std::max(runs.back().longest_thread_cpu_s, value);
    } else if (key == "elapsed_s" && !runs.empty()) {
      runs.back().elapsed_s = value;
    }
  }
  return runs;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

class Scale : public ScratchTest {};

TEST_F(Scale, SpeedupAndLostTimeAreWhatTheProgramsClocksSay) {
  if (allowed_processors() < 2) GTEST_SKIP() << "one processor: nothing to scale";
  const CommandResult r =
      run_command({kQuartz, "scale", "--store", store, "--json", "--processors", "1,2", "--repeat",
                   "2", "--", sample("imbalance"), "--threads", "2", "--unit-ms", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json scaling = json::parse(r.out);
  const std::vector<Printed> printed = printed_runs(r.err);
  ASSERT_EQ(printed.size(), 4u) << r.err;
  // Repeats interleave: 1, 2, 1, 2 processors.
  std::vector<double> own[2];
  for (size_t i = 0; i < printed.size(); ++i) own[i % 2].push_back(printed[i].elapsed_s);
  // On one processor the threads ran one at a time (how parallel two were depends on what
  // else the machine ran).
  for (size_t i = 0; i < printed.size(); i += 2) {
    EXPECT_GT(printed[i].elapsed_s, 0.95 * printed[i].threads_cpu_s) << "one processor: serial";
  }
  const json& points = scaling["points"];
  ASSERT_EQ(points.size(), 2u);
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  const double period_s = json::parse(report.out)["sampling"]["period_s"];
  const double t1 = median(own[0]), t2 = median(own[1]);
  EXPECT_EQ(points[0]["processors"], 1);
  EXPECT_EQ(points[1]["processors"], 2);
  EXPECT_NEAR(points[0]["elapsed_s"].get<double>(), t1, 2 * period_s);
  EXPECT_NEAR(points[1]["elapsed_s"].get<double>(), t2, 2 * period_s);
  EXPECT_NEAR(points[1]["speedup"].get<double>(), t1 / t2, 0.03);
  EXPECT_NEAR(points[1]["efficiency"].get<double>(), t1 / (2 * t2), 0.02);
  EXPECT_TRUE(scaling["non_scalability"].is_null()) << "two counts cannot tell it";
  EXPECT_FALSE(scaling["notes"].empty());

  // The capacity lost on two processors is do_share's, the first procedure (the longer
  // thread runs alone at the end): 2 D2 - D1, where D_p is do_share's normalized time on p
  // processors, the time the threads were in it and something ran. The program's clocks
  // bound D_p: on one processor between the sum of the threads' CPU clocks and the elapsed
  // time (the turns the sampler or a foreign process took on that processor while the
  // threads waited are do_share's elapsed time too); on two between the longer thread's
  // clock and the elapsed time (more than its clock when something else took a processor
  // from one thread for a while).
  json top;
  for (const json& region : scaling["regions"]) {
    if (region["kind"] == "procedure") {
      top = region;
      break;
    }
  }
  EXPECT_EQ(top["name"], "do_share") << scaling["regions"].dump(1);
  const auto median_run_at = [&](size_t first) {
    return printed[first].elapsed_s <= printed[first + 2].elapsed_s ? printed[first]
                                                                    : printed[first + 2];
  };
  const Printed one = median_run_at(0), two = median_run_at(1);
  const double lost_s = top["lost_s"][1].get<double>();
  EXPECT_GT(lost_s, 2 * two.longest_thread_cpu_s - one.elapsed_s - 2 * period_s);
  EXPECT_LT(lost_s, 2 * two.elapsed_s - one.threads_cpu_s + 2 * period_s);

  // The series is in the store, listed as such and reported again with the same figures.
  const CommandResult list = run_command({kQuartz, "list", "--store", store});
  EXPECT_EQ(std::count(list.out.begin(), list.out.end(), '\n'), 5) << list.out;
  size_t listed = 0;
  for (size_t at = 0; (at = list.out.find("(scale series 1)", at)) != std::string::npos; ++at) {
    ++listed;
  }
  EXPECT_EQ(listed, 4u) << list.out;
  const CommandResult again =
      run_command({kQuartz, "scale", "--store", store, "--json", "--series", "1"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(json::parse(again.out)["points"], points);
}

TEST_F(Scale, WhatTheMachineCannotMeasureIsRefused) {
  const std::string too_many = std::to_string(allowed_processors() + 1);
  const CommandResult r = run_command(
      {kQuartz, "scale", "--store", store, "--processors", too_many, "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot be measured"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
}  // namespace quartz::test
