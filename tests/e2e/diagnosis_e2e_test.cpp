// End-to-end: the diagnosis suite of known shapes (issue 41). Each sample's problem is known
// by construction (its own header says what it does); `quartz diagnose`'s first finding must
// be that problem, on a quiet machine and beside a CPU-bound process, and no finding may
// claim more than the run's figures it explains (expect_possible_figures: the rule `quartz
// check` applies, analysis/diagnosis_check.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness.h"
#include "invariants.h"

namespace quartz::test {
namespace {

using nlohmann::json;

struct Shape {
  const char* name;  // the test's
  const char* sample;
  std::vector<std::string> args;
  const char* property;  // the first finding's
  const char* subject;   // "" when any; "@key" when the line the sample prints as key
};

// The OpenMP shapes run omp_phases (samples/omp_phases.c) as gcc and as clang built it.
std::vector<std::string> omp(long setup_ms, long unit_ms, long serial_ms, long steps) {
  return {"--setup-ms",    std::to_string(setup_ms),
          "--unit-ms",     std::to_string(unit_ms),
          "--serial-ms",   std::to_string(serial_ms),
          "--steps",       std::to_string(steps),
          "--step-ms",     "10",
          "--critical-ms", "1"};
}

const Shape kShapes[] = {
    // 16 kernels of 100 ms on 2 processors, then 100 ms of logging on main alone.
    {"SerialEnd",
     "serial_init",
     {"--kernels", "4", "--kernel-ms", "100"},
     "serial bottleneck",
     "log_message"},
    // Four threads each holding the lock 100 of every 120 us (4 x 100 > 20 + 100). Four, so
    // that it stays the problem beside a CPU-bound process: two threads then share about one
    // processor and rarely meet at the lock (its finding fell to 3-4%, level with the
    // procedures'), where a holder preempted keeps three waiting.
    {"LockContention",
     "lock_contention",
     {"--threads", "4", "--iterations", "1000", "--work-us", "20"},
     "lock contention",
     "work_queue"},
    // Four workers with shares of 1 to 4 units.
    {"LoadImbalance", "imbalance", {"--unit-ms", "50"}, "load imbalance", ""},
    // Four threads spinning for a resource held 10 ms at a time, on 2 processors.
    {"SpinWaste",
     "spin_vs_block",
     {"--threads", "4", "--hold-ms", "10", "--rounds", "10"},
     "spin waste",
     "resource_spin"},
    // Reads that sleep in the kernel between short computations, one thread.
    {"IoWaits", "io_wait", {"--rounds", "20"}, "blocking not overlapped", ""},
    // Three threads meeting at a barrier after each 4 ms step, on 2 processors: one
    // processor idle for the last thread's step each time.
    {"Oversubscription", "oversubscribed", {}, "oversubscription", ""},
    // A loader, then a solver started late and ending alone; main only joins.
    {"StartUpAndWindDown", "stages", {}, "start-up and wind-down starvation", ""},
    // 400 ms on main before the first parallel region, when the team does not exist yet.
    {"OmpSerialSetUp", "omp_phases", omp(400, 50, 0, 2), "serial bottleneck", "set_up"},
    {"ClangOmpSerialSetUp", "omp_phases_clang", omp(400, 50, 0, 2), "serial bottleneck", "set_up"},
    // 400 ms on main between two parallel regions.
    {"OmpSerialBetween", "omp_phases", omp(0, 50, 400, 2), "serial bottleneck", "serial_phase"},
    {"ClangOmpSerialBetween", "omp_phases_clang", omp(0, 50, 400, 2), "serial bottleneck",
     "serial_phase"},
    // A region whose thread i computes (i + 1) x 200 ms, then waits at its end.
    {"OmpImbalance", "omp_phases", omp(0, 200, 0, 0), "load imbalance", "@region_imbalance_line"},
    {"ClangOmpImbalance", "omp_phases_clang", omp(0, 200, 0, 0), "load imbalance",
     "@region_imbalance_line"},
};

void PrintTo(const Shape& shape, std::ostream* out) {
  *out << shape.name;
}

class Diagnosis : public ScratchTest,
                  public testing::WithParamInterface<std::tuple<Shape, bool>> {};

TEST_P(Diagnosis, TheFirstFindingIsTheShapesProblem) {
  const auto& [shape, loaded] = GetParam();
  const std::string capture = (dir / "run.qcap").string();
  std::vector<std::string> argv{kQuartz, "run",   "-q", "--store",           store,
                                "-o",    capture, "--", sample(shape.sample)};
  argv.insert(argv.end(), shape.args.begin(), shape.args.end());
  if (!std::filesystem::exists(sample(shape.sample))) GTEST_SKIP() << "not built";
  std::optional<Competitors> beside;
  if (loaded) beside.emplace(1);
  const CommandResult r = run_command(argv);
  beside.reset();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  if (const std::optional<Capture> kept = read_capture_file(capture)) {
    expect_possible_figures(kept->run);
  }
  const CommandResult d = run_command({kQuartz, "diagnose", "--store", store, "--json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const json findings = json::parse(d.out)["findings"];
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0]["property"], shape.property) << findings.dump(1);
  std::string subject = shape.subject;
  if (subject.rfind("@", 0) == 0) {
    subject = "end of omp_parallel@omp_phases.c:" + printed_values(r.out)[subject.substr(1)];
  }
  if (!subject.empty()) {
    EXPECT_EQ(findings[0]["subject"], subject) << findings.dump(1);
  }
  EXPECT_GE(findings[0]["confidence"].get<double>(), 0.5) << findings.dump(1);
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  EXPECT_EQ(json::parse(report.out)["findings"][0], findings[0]) << "the report's top finding";
}

INSTANTIATE_TEST_SUITE_P(Shapes, Diagnosis,
                         testing::Combine(testing::ValuesIn(kShapes), testing::Bool()),
                         [](const testing::TestParamInfo<std::tuple<Shape, bool>>& info) {
                           return std::string(std::get<0>(info.param).name) +
                                  (std::get<1>(info.param) ? "BesideACpuBoundProcess" : "Quiet");
                         });

}  // namespace
}  // namespace quartz::test
