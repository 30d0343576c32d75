// End-to-end: a thread's processor time and the run's elapsed time against the program's
// own clocks (issue 9 items 1 and 2). thread_churn's threads each read their own CPU clock
// (CLOCK_THREAD_CPUTIME_ID) at their end, and main its wall clock from its start to its
// return; the capture, read as users read it, must agree with them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <numeric>
#include <sstream>

#include "harness.h"
#include "invariants.h"

namespace quartz::test {
namespace {

namespace run_keys = capture::run_keys;

struct Churn {
  int threads;
  int life_us;
  int at_once;
};

std::ostream& operator<<(std::ostream& out, const Churn& c) {
  return out << c.threads << " threads of " << c.life_us << " us, " << c.at_once << " at once";
}

struct Truth {
  std::map<int32_t, double> cpu_s;  // each thread's own clock at its end, by tid
  double threads_cpu_s = 0;
  double wall_s = 0;  // main's start to its return
};

Truth printed_truth(const std::string& out) {
  Truth truth;
  std::istringstream lines(out);
  std::string word;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    int32_t tid = 0;
    unsigned long long ns = 0;
    if (fields >> word && word == "thread" && fields >> tid >> ns) truth.cpu_s[tid] = ns * 1e-9;
  }
  const auto values = printed_values(out);
  truth.threads_cpu_s = std::strtod(values.at("threads_cpu_ns").c_str(), nullptr) * 1e-9;
  truth.wall_s = std::strtod(values.at("wall_ns").c_str(), nullptr) * 1e-9;
  return truth;
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

RunResult run_churn(const Churn& c) {
  return run_program("thread_churn", {std::to_string(c.threads), std::to_string(c.life_us),
                                      std::to_string(c.at_once)});
}

class ThreadChurn : public ::testing::TestWithParam<Churn> {};

// Each thread is credited what its own clock says it used, however short it lived: the
// thread's CPU time and its processor time in the profile, within 5% in total or one
// sampling period per thread.
TEST_P(ThreadChurn, ThreadsAreCreditedWhatTheirOwnClocksSay) {
  const Churn churn = GetParam();
  const RunResult r = run_churn(churn);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(r.capture);
  const profile::Run& run = r.capture->run;
  const Truth truth = printed_truth(r.out);
  ASSERT_EQ(truth.cpu_s.size(), static_cast<size_t>(churn.threads)) << "tids must be distinct";
  const double period_s = r.capture->info(run_keys::kPeriodNs) * 1e-9;

  double cpu_s = 0, processor_s = 0;
  size_t seen = 0;
  for (const profile::ThreadInfo& t : run.threads) {
    auto it = truth.cpu_s.find(t.tid);
    if (t.index == 0 || it == truth.cpu_s.end()) continue;
    ++seen;
    const double own_s = it->second;
    const double thread_cpu_s = t.cpu_ns * 1e-9;
    const double thread_processor_s = sum(t.record.processor_self) + sum(t.record.processor_behalf);
    const double bound_s = std::max(0.05 * own_s, period_s);
    EXPECT_NEAR(thread_cpu_s, own_s, bound_s) << "thread " << t.index << " CPU time";
    EXPECT_NEAR(thread_processor_s, own_s, bound_s) << "thread " << t.index << " processor time";
    cpu_s += thread_cpu_s;
    processor_s += thread_processor_s;
  }
  EXPECT_EQ(seen, truth.cpu_s.size()) << "every thread is in the capture";
  const double total_bound_s = 0.05 * truth.threads_cpu_s;
  EXPECT_NEAR(cpu_s, truth.threads_cpu_s, total_bound_s) << "the threads' CPU time";
  EXPECT_NEAR(processor_s, truth.threads_cpu_s, total_bound_s) << "the threads' processor time";
  expect_possible_figures(run);
}

INSTANTIATE_TEST_SUITE_P(
    Lives, ThreadChurn,
    ::testing::Values(Churn{1, 10000, 1},    // one thread, several periods
                      Churn{250, 50, 1},     // the case: far shorter than a period
                      Churn{200, 100, 8},    // short, several at once
                      Churn{40, 10000, 4},   // longer than a period, more than P at once
                      Churn{10000, 10, 1}),  // ten thousand of the shortest
    [](const ::testing::TestParamInfo<Churn>& info) {
      return std::to_string(info.param.threads) + "x" + std::to_string(info.param.life_us) + "us_" +
             std::to_string(info.param.at_once) + "_at_once";
    });

// The root's normalized time is the run's one elapsed time, and that is the program's own
// wall clock from main's start to its return, within 2% or two sampling periods (the
// runtime starts before main and ends after it returns).
TEST(ElapsedTime, IsTheProgramsOwnWallClock) {
  const RunResult r = run_churn(Churn{400, 200, 2});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(r.capture);
  const profile::Run& run = r.capture->run;
  const Truth truth = printed_truth(r.out);
  const double period_s = r.capture->info(run_keys::kPeriodNs) * 1e-9;
  const double root_s = sum(run.program.normalized_self) + sum(run.program.normalized_behalf);
  const double bound_s = std::max(0.02 * truth.wall_s, 2 * period_s);
  EXPECT_NEAR(root_s, truth.wall_s, bound_s) << "the root's normalized time";
  EXPECT_NEAR(run.elapsed_s(), truth.wall_s, bound_s) << "the elapsed time";
  expect_possible_figures(run);
}

}  // namespace
}  // namespace quartz::test
