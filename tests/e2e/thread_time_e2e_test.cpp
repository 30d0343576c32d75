// End-to-end: a thread's processor time and the run's elapsed time against the program's
// own clocks (issue 9 items 1 and 2). thread_churn's threads each read their own CPU clock
// (CLOCK_THREAD_CPUTIME_ID) at their end, and main its wall clock from its start to its
// return; the capture, read as users read it, must agree with them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "harness.h"
#include "invariants.h"

namespace quartz::test {
namespace {

namespace run_keys = capture::run_keys;
using nlohmann::json;

struct Churn {
  int threads;
  int life_us;
  int at_once;
};

std::ostream& operator<<(std::ostream& out, const Churn& c) {
  return out << c.threads << " threads of " << c.life_us << " us, " << c.at_once << " at once";
}

// A thread's own clock at the end of its work, and again as it ended, after its start
// routine had returned: a profiler's reading at its end comes between the two.
struct OwnClock {
  double last_s = 0, after_s = 0;
};

struct Truth {
  std::map<int32_t, OwnClock> cpu;  // by tid
  double threads_cpu_s = 0, threads_after_s = 0;
  double wall_s = 0;  // main's start to its return
};

Truth printed_truth(const std::string& out) {
  Truth truth;
  std::istringstream lines(out);
  std::string word;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    int32_t tid = 0;
    unsigned long long last = 0, after = 0;
    if (fields >> word && word == "thread" && fields >> tid >> last >> after) {
      truth.cpu[tid] = {last * 1e-9, after * 1e-9};
    }
  }
  const auto values = printed_values(out);
  truth.threads_cpu_s = std::strtod(values.at("threads_cpu_ns").c_str(), nullptr) * 1e-9;
  truth.threads_after_s = std::strtod(values.at("threads_after_ns").c_str(), nullptr) * 1e-9;
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

// Each thread is credited what its own clock says it used, however short it lived. Its CPU
// time in the profile is read at its end, after the thread's own last reading and before
// its key's destructor reads the clock again: between the two, exactly (a clock reading
// apart, 0.7-0.9 us on this virtual machine, or milliseconds when the host takes the
// processor between them, which the guest's kernel charges to the thread). Its processor
// time, placed by the sampler, is between them within 5% in total or a sampling period per
// thread.
TEST_P(ThreadChurn, ThreadsAreCreditedWhatTheirOwnClocksSay) {
  const Churn churn = GetParam();
  const RunResult r = run_churn(churn);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(r.capture);
  const profile::Run& run = r.capture->run;
  const Truth truth = printed_truth(r.out);
  ASSERT_EQ(truth.cpu.size(), static_cast<size_t>(churn.threads)) << "tids must be distinct";
  const double period_s = r.capture->info(run_keys::kPeriodNs) * 1e-9;
  constexpr double kNs = 1e-9;  // the clocks' resolution

  double processor_s = 0;
  size_t seen = 0, outside = 0;
  for (const profile::ThreadInfo& t : run.threads) {
    auto it = truth.cpu.find(t.tid);
    if (t.index == 0 || it == truth.cpu.end()) continue;
    ++seen;
    const OwnClock own = it->second;
    const double thread_cpu_s = t.cpu_ns * 1e-9;
    const double thread_processor_s = sum(t.record.processor_self) + sum(t.record.processor_behalf);
    if ((thread_cpu_s + kNs < own.last_s || thread_cpu_s > own.after_s + kNs) && outside++ == 0) {
      ADD_FAILURE() << "thread " << t.index << " credited " << thread_cpu_s * 1e6
                    << " us of CPU time, outside its own readings, " << own.last_s * 1e6 << " to "
                    << own.after_s * 1e6 << " us";
    }
    const double bound_s = std::max(0.05 * own.last_s, period_s);
    EXPECT_GE(thread_processor_s, own.last_s - bound_s) << "thread " << t.index;
    EXPECT_LE(thread_processor_s, own.after_s + bound_s) << "thread " << t.index;
    processor_s += thread_processor_s;
  }
  EXPECT_EQ(seen, truth.cpu.size()) << "every thread is in the capture";
  EXPECT_EQ(outside, 0u) << "threads credited CPU time outside their own readings";
  EXPECT_GE(processor_s, 0.95 * truth.threads_cpu_s) << "the threads' processor time";
  EXPECT_LE(processor_s, 1.05 * truth.threads_after_s) << "the threads' processor time";
  // The time by processors busy holds their processor time too: i processors for the time
  // at i. (Threads of half a period, one at a time: it held 10% less when a reading's part
  // credited to the sample before went past that sample's presence.)
  double busy_processor_s = 0;
  for (size_t i = 0; i < run.program.normalized_self.size(); ++i) {
    busy_processor_s += static_cast<double>(i) * run.program.normalized_self[i];
  }
  EXPECT_GE(busy_processor_s, 0.95 * truth.threads_cpu_s) << "the processors busy";
  expect_possible_figures(run);
}

INSTANTIATE_TEST_SUITE_P(
    Lives, ThreadChurn,
    ::testing::Values(Churn{1, 10000, 1},   // one thread, several periods
                      Churn{250, 50, 1},    // the case: far shorter than a period
                      Churn{200, 100, 8},   // short, several at once
                      Churn{16, 10000, 4},  // longer than a period, more than P at once
                      Churn{500, 1000, 1},  // half a period each
                      // Ten thousand of the shortest (a thousand under a sanitizer, whose
                      // thread creation is much slower).
                      Churn{QUARTZ_SANITIZED ? 1000 : 10000, 10, 1}),
    [](const ::testing::TestParamInfo<Churn>& info) {
      return std::to_string(info.param.threads) + "x" + std::to_string(info.param.life_us) + "us_" +
             std::to_string(info.param.at_once) + "_at_once";
    });

// A thousand threads runnable at once on a few processors (issue 39): their processor time
// is what their own clocks say within 5% in total, and the sampler keeps the period it
// reports: over the program's own wall time, at least 90% of the snapshots its longest
// period schedules. (At a fixed 2 ms and normal priority it took one in sixteen: one of
// 1,025 runnable threads, with a walk over them costing most of a period.)
TEST(ManyThreads, AThousandRunnableThreadsKeepTheirTimeAndTheSamplerItsPeriod) {
  const int threads = QUARTZ_SANITIZED ? 256 : 1024;
  const RunResult r = run_program("many_threads", {std::to_string(threads), "3000"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(r.capture);
  const profile::Run& run = r.capture->run;
  const auto values = printed_values(r.out);
  const double own_cpu_s = std::strtod(values.at("threads_cpu_ns").c_str(), nullptr) * 1e-9;
  const double wall_s = std::strtod(values.at("wall_ns").c_str(), nullptr) * 1e-9;
  double processor_s = 0;
  size_t workers = 0;
  for (const profile::ThreadInfo& t : run.threads) {
    if (t.index == 0) continue;
    ++workers;
    processor_s += sum(t.record.processor_self) + sum(t.record.processor_behalf);
  }
  EXPECT_EQ(workers, static_cast<size_t>(threads));
  EXPECT_GE(processor_s, 0.95 * own_cpu_s) << "the workers' processor time";
  EXPECT_LE(processor_s, 1.05 * own_cpu_s) << "the workers' processor time";
  const double longest_s =
      std::max(r.capture->info(run_keys::kPeriodLongestNs), r.capture->info(run_keys::kPeriodNs)) *
      1e-9;
  const double snapshots = r.capture->info(run_keys::kSamples);
  ASSERT_GT(longest_s, 0);
  EXPECT_GE(snapshots, 0.9 * wall_s / longest_s)
      << "snapshots in " << wall_s << " s with periods up to " << longest_s << " s, sampler at "
      << run.text(run_keys::kSamplerPriority) << " priority";
  expect_possible_figures(run);
}

// A thread that never sleeps is never blocked, however much of its time the hooks take: their
// cost comes out of its processor time, not its time on a processor (every call hooked,
// budget 0; the hooks took 40% of the threads' time, and all of it read as blocked). Its
// truth is the kernel's own: its lifetime less its time running and on the run queue, read
// from its schedstat at its end.
TEST(HookCost, AThreadThatNeverSleepsIsNeverBlocked) {
  RunOptions options;
  options.env["QUARTZ_BUDGET"] = "0";
  const RunResult r =
      run_program("hook_heavy", {"2", QUARTZ_SANITIZED ? "1000000" : "8000000"}, options);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_TRUE(r.capture);
  const profile::Run& run = r.capture->run;
  const double period_s = r.capture->info(run_keys::kPeriodNs) * 1e-9;
  std::map<int32_t, std::pair<double, double>> truth;  // by tid: lifetime, slept
  std::istringstream lines(r.out);
  std::string word;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    int32_t tid = 0;
    long long life = 0, slept = 0;
    if (fields >> word && word == "thread" && fields >> tid >> life >> slept) {
      truth[tid] = {life * 1e-9, std::max(0.0, slept * 1e-9)};
    }
  }
  ASSERT_EQ(truth.size(), 2u) << r.out;
  EXPECT_GT(r.capture->info(run_keys::kDilationRemovedNs) * 1e-9, 0.0) << "hooks taken out";
  size_t seen = 0;
  for (const profile::ThreadInfo& t : run.threads) {
    const auto it = truth.find(t.tid);
    if (it == truth.end()) continue;
    ++seen;
    const auto [life_s, slept_s] = it->second;
    const double blocked_s =
        t.record.state_self[capture::kBlocked] + t.record.state_behalf[capture::kBlocked];
    EXPECT_LE(blocked_s, slept_s + std::max(2 * period_s, 0.02 * life_s))
        << "thread " << t.index << " lived " << life_s << " s and slept " << slept_s << " s";
  }
  EXPECT_EQ(seen, truth.size());
  expect_possible_figures(run);
}

// The run's one elapsed time is the program's own wall clock from main's start to its
// return, within 2% or two sampling periods (the runtime starts before main and ends after
// it returns), and it is the same figure everywhere: the root's normalized time, the
// report's elapsed time and predict's "recorded".
class ElapsedTime : public ScratchTest {
 protected:
  json command_json(const std::vector<std::string>& argv) {
    const CommandResult r = run_command(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  }
};

TEST_F(ElapsedTime, IsTheProgramsOwnWallClockEverywhere) {
  const std::string capture_path = (dir / "churn.qcap").string();
  const CommandResult run =
      run_command({kQuartz, "run", "-q", "--trace", "--store", store, "-o", capture_path, "--",
                   std::string(QUARTZ_E2E_DIR) + "/thread_churn", "500", "1000", "2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const double wall_s = printed_truth(run.out).wall_s;
  const json report = command_json({kQuartz, "report", "--store", store, "--json"});
  const json predict = command_json({kQuartz, "predict", "--store", store, "--json"});
  ASSERT_FALSE(report.is_discarded());
  ASSERT_FALSE(predict.is_discarded());
  const double period_s = report["sampling"]["period_s"];
  const double bound_s = std::max(0.02 * wall_s, 2 * period_s);
  const double elapsed_s = report["elapsed_s"];
  EXPECT_NEAR(report["program_totals"]["normalized_s"].get<double>(), wall_s, bound_s)
      << "the root's normalized time";
  EXPECT_NEAR(elapsed_s, wall_s, bound_s) << "the report's elapsed time";
  double histogram_s = 0;
  for (double t : report["parallelism_s"]) histogram_s += t;
  EXPECT_NEAR(histogram_s, wall_s, bound_s) << "the parallelism histogram";
  EXPECT_DOUBLE_EQ(predict["observed_s"].get<double>(), elapsed_s) << "predict's recorded time";

  // The same run's capture holds only possible figures.
  const std::optional<Capture> capture = read_capture_file(capture_path);
  ASSERT_TRUE(capture);
  expect_possible_figures(capture->run);
}

}  // namespace
}  // namespace quartz::test
