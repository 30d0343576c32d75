// End-to-end: preemption is not blocking (issue 9 item 7). Compute-only threads (the
// imbalance sample: two threads that never block) run beside CPU-bound processes of the
// test's own, one per processor, so that they spend much of their lives ready, waiting for
// a processor. The truths are the threads' own CPU clocks (printed by the program) and that
// they never sleep: their busy time is what their clocks say, the rest of their lives is
// ready, and blocked is only the little the measurement cannot place. The report also says
// what the competitors took, against the kernel's accounting of their processor time.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;

class Preemption : public ScratchTest {};

TEST_F(Preemption, ComputeThreadsOffTheProcessorAreReadyNotBlocked) {
  Competitors competitors;
  const CommandResult r = run_command({kQuartz, "run", "-q", "--store", store, "--",
                                       sample("imbalance"), "--threads", "2", "--unit-ms", "150"});
  competitors.stop();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto printed = printed_values(r.out);
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json j = json::parse(report.out);
  const double period_s = j["sampling"]["period_s"];
  int checked = 0;
  for (const json& t : j["threads"]) {
    const std::string name = t["name"];
    if (name.rfind("share_", 0) != 0) continue;
    SCOPED_TRACE(name);
    const double cpu_s = std::stod(printed.at("thread_" + name.substr(6) + "_cpu_s"));
    const double busy = t["busy_s"], ready = t["ready_s"], blocked = t["blocked_s"];
    const double life = busy + ready + blocked + t["spin_s"].get<double>();
    EXPECT_NEAR(busy, cpu_s, 0.02 * cpu_s + period_s) << "busy is its own CPU time";
    EXPECT_GT(ready, 0.2 * life) << "it waited for a processor";
    EXPECT_LT(blocked, 0.1 * life) << "it never slept: ready " << ready << " s, life " << life;
    ++checked;
  }
  EXPECT_EQ(checked, 2);

  // What the competitors took during the run, shown in the report: at least their share of
  // it at the rate they ran (they started before it and ended after), at most all of the
  // program's processors' time.
  const double elapsed = j["elapsed_s"], processors = j["processors"];
  const double other = j["sampling"]["other_cpu_s"];
  EXPECT_GT(other, 0.8 * competitors.cpu_s() * elapsed / competitors.life_s())
      << "competitors used " << competitors.cpu_s() << " s in " << competitors.life_s() << " s";
  EXPECT_LT(other, elapsed * processors);
}

// Beside a CPU-bound process competing for one of the two processors, the lock-bound
// sample's lock still explains more than any procedure's time alone: its private work ran
// alone while its other threads were ready for the processor the competitor had, which is
// not a serial bottleneck (a CI run whose processors other tests took ranked it above the
// lock). The finding about the measurement says what other processes took.
TEST_F(Preemption, AProcedureAloneWhileOtherProcessesHadTheProcessorsIsNotSerial) {
  Competitors competitors(1);
  const CommandResult r =
      run_command({kQuartz, "run", "-q", "--store", store, "--", sample("lock_contention"),
                   "--iterations", "500", "--work-us", "20"});
  competitors.stop();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CommandResult d = run_command({kQuartz, "diagnose", "--store", store, "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const json findings = json::parse(d.out)["findings"];
  const json* lock = nullptr;
  const json* others = nullptr;
  for (const json& f : findings) {
    if (f["property"] == "lock contention" && f["subject"] == "work_queue") lock = &f;
    if (f["property"] == "processors taken by other processes") others = &f;
  }
  ASSERT_NE(lock, nullptr) << findings.dump(1);
  for (const json& f : findings) {
    if (f["property"] != "serial bottleneck") continue;
    EXPECT_LT(f["severity"].get<double>(), (*lock)["severity"].get<double>()) << findings.dump(1);
  }
  ASSERT_NE(others, nullptr) << findings.dump(1);
  EXPECT_NE((*others)["evidence"].get<std::string>().find("other processes took"),
            std::string::npos)
      << findings.dump(1);
}

}  // namespace
}  // namespace quartz::test
