// End-to-end: preemption is not blocking (issue 9 item 7). Compute-only threads (the
// imbalance sample: two threads that never block) run beside CPU-bound processes of the
// test's own, one per processor, so that they spend much of their lives ready, waiting for
// a processor. The truths are the threads' own CPU clocks (printed by the program) and that
// they never sleep: their busy time is what their clocks say, the rest of their lives is
// ready, and blocked is only the little the measurement cannot place.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
const std::string kQuartz = std::string(QUARTZ_BIN_DIR) + "/quartz";

// CPU-bound processes, one per processor the test may use, until destroyed.
class Competitors {
 public:
  Competitors() {
    cpu_set_t set;
    CPU_ZERO(&set);
    const int processors = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    for (int i = 0; i < processors; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        alarm(60);  // never outlives a test that dies
        for (unsigned long spin = 0;; ++spin) asm volatile("" : "+r"(spin));  // not optimized out
      }
      if (pid > 0) pids_.push_back(pid);
    }
  }
  ~Competitors() {
    for (pid_t pid : pids_) kill(pid, SIGKILL);
    for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
  }

 private:
  std::vector<pid_t> pids_;
};

class Preemption : public ScratchTest {};

TEST_F(Preemption, ComputeThreadsOffTheProcessorAreReadyNotBlocked) {
  CommandResult r;
  {
    Competitors competitors;
    r = run_command({kQuartz, "run", "-q", "--store", store, "--",
                     std::string(QUARTZ_SAMPLES_DIR) + "/imbalance", "--threads", "2", "--unit-ms",
                     "150"});
  }
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
}

}  // namespace
}  // namespace quartz::test
