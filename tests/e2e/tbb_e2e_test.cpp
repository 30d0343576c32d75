// End-to-end: the work of the OpenMP sample written with oneTBB (samples/tbb_phases.cpp),
// seen through its ITT notifications (runtime/itt_collector.cpp): the time both processors
// are busy, the main thread's waits in tbb::parallel_invoke, the worker's idle time and the
// mutex's holds, each against the program's own clocks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;

class TbbE2E : public ScratchTest {
 protected:
  void SetUp() override {
    ScratchTest::SetUp();
    const CommandResult r =
        run_command({kQuartz, "run", "-q", "--store", store, "--", sample("tbb_phases")}, env);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    printed = printed_values(r.out);
    const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
    ASSERT_EQ(report.exit_code, 0) << report.err;
    run = json::parse(report.out, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(run.is_discarded());
    period_s = run["sampling"]["period_s"];
  }
  double truth(const std::string& key) const {
    auto it = printed.find(key);
    EXPECT_NE(it, printed.end()) << "tbb_phases did not print " << key;
    return it == printed.end() ? 0 : std::stod(it->second);
  }
  const json* named(const char* section, const std::string& name) const {
    for (const json& row : run[section]) {
      if (row["name"] == name) return &row;
    }
    return nullptr;
  }
  const json* thread(int index) const {
    for (const json& t : run["threads"]) {
      if (t["index"] == index) return &t;
    }
    return nullptr;
  }

  std::map<std::string, std::string> env;
  std::map<std::string, std::string> printed;
  json run;
  double period_s = 0;
};

// Normalized time itself: both processors are busy while both threads are in their work,
// within 5 points of the elapsed time; TBB's worker looking for work is not working.
TEST_F(TbbE2E, BothProcessorsAreBusyOnlyWhileBothThreadsWork) {
  EXPECT_EQ(run["sampling"]["itt"], "collector");
  ASSERT_GE(run["processors"].get<double>(), 2);
  const double elapsed = run["elapsed_s"], both = run["parallelism_s"][2];
  const double working = truth("both_working_s"), lost = truth("both_working_lost_s");
  EXPECT_GT(both, working - lost - 0.05 * elapsed) << both << " s of " << elapsed << " s";
  EXPECT_LT(both, working + 0.05 * elapsed) << both << " s of " << elapsed << " s";
  const json* worker = thread(1);
  ASSERT_NE(worker, nullptr);
  const double work = truth("thread_1_work_cpu_s");
  EXPECT_NEAR((*worker)["busy_s"].get<double>(), work, kSlack * std::max(0.1 * work, 4 * period_s));
  // No name of TBB's machinery (its task wrappers, found first on a thread's stack) nor a
  // compiler's symbol for static initialisers; the program's own lambdas keep theirs.
  const std::string text = run.dump();
  for (const char* made_up : {"_GLOBAL__", "function_invoker", "d1::"}) {
    EXPECT_EQ(text.find(made_up), std::string::npos) << made_up;
  }
}

// The main thread, done with its share first, waits in the invoke: a named object, whose
// wait is the program's timing of it and the thread's spinning and blocked time; the
// worker between invokes waits as TBB's idle worker.
TEST_F(TbbE2E, TheMainThreadWaitsInTheInvokeOnANamedObject) {
  const json* invoke = named("locks", "tbb::parallel_invoke");
  const json* idle = named("locks", "tbb worker idle");
  ASSERT_TRUE(invoke && idle) << run["locks"].dump();
  EXPECT_EQ((*invoke)["kind"], "tbb wait");
  EXPECT_EQ((*idle)["kind"], "tbb idle");
  const double waited = truth("region_end_wait_s") + truth("step_wait_s");
  const double bound = kSlack * std::max(0.1 * waited, 4 * period_s);
  EXPECT_NEAR((*invoke)["wait_s"].get<double>(), waited, bound);
  const json* main_thread = thread(0);
  ASSERT_NE(main_thread, nullptr);
  EXPECT_NEAR((*main_thread)["spin_s"].get<double>() + (*main_thread)["blocked_s"].get<double>(),
              waited, bound);
  // The worker waits at least through the serial phase, when it has nothing to do.
  EXPECT_GT((*idle)["wait_s"].get<double>(), truth("serial_s") - 2 * period_s);
  const json* worker = thread(1);
  ASSERT_NE(worker, nullptr);
  // TBB's name for it, as long as the kernel's names are (15 characters).
  EXPECT_EQ((*worker)["name"], std::string("TBB Worker Thread").substr(0, 15));
}

// oneTBB's spin_mutex (the program built with TBB_USE_PROFILING_TOOLS): held as long as the
// program held it, once per step and thread.
TEST_F(TbbE2E, TheMutexIsHeldAsTheProgramHeldIt) {
  const json* mutex = named("locks", "tbb::spin_mutex");
  ASSERT_NE(mutex, nullptr) << run["locks"].dump();
  EXPECT_EQ((*mutex)["acquisitions"].get<double>(), truth("results"));
  const double held = truth("critical_hold_s");
  EXPECT_GT((*mutex)["hold_s"].get<double>(), 0.9 * held - 2 * period_s);
  EXPECT_LT((*mutex)["hold_s"].get<double>(), 1.1 * held + 4 * period_s);
}

// A program that names its own ITT collector keeps it; the report says what is not seen.
class TbbOwnCollector : public TbbE2E {
 protected:
  void SetUp() override {
    env["INTEL_LIBITTNOTIFY64"] = "/nonexistent/libcollector.so";
    TbbE2E::SetUp();
  }
};

TEST_F(TbbOwnCollector, TheReportSaysTheWaitsAreNotSeen) {
  EXPECT_EQ(run["sampling"]["itt"], "program collector");
  EXPECT_EQ(named("locks", "tbb::parallel_invoke"), nullptr);
  const CommandResult text = run_command({kQuartz, "report", "--store", store});
  EXPECT_NE(text.out.find("NOT SEEN: ITT notifications"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace quartz::test
