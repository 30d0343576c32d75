// End-to-end: a program that ends abruptly under `quartz run` (SIGKILL, a fatal signal,
// _exit, quick_exit, abort), before the runtime's first checkpoint or after one, still
// leaves a stored run that covers its life to within one sampling period of its end
// (issue 10 item 2). The ends the runtime sees (_exit, quick_exit, abort) finish the run as
// exit does; for the others `quartz run` writes what the runtime last published. The truth
// is the program's own wall clock from main's start to the instant before it ends, and the
// kernel's account of how it ended.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <string>

#include "harness.h"
#include "invariants.h"

namespace quartz::test {
namespace {

using nlohmann::json;

struct Ending {
  const char* mode;
  int ms;      // how long the program works first (checkpoints: every 1,000 ms)
  int signal;  // the signal that ends it; 0: it exits with status 0
  bool seen;   // by the runtime, which then writes the final capture itself
  // Mutexes it takes first: a capture too big to publish every period, which the stored
  // run has with the amendments logged after it.
  int objects = 0;
};

std::ostream& operator<<(std::ostream& out, const Ending& e) {
  return out << e.mode << " after " << e.ms << " ms, " << e.objects << " objects";
}

class AbruptEnd : public ScratchTest, public ::testing::WithParamInterface<Ending> {};

TEST_P(AbruptEnd, StoredRunCoversTheProgramToItsEnd) {
  // A sanitizer's runtime owns fatal signals and abort (it reports and exits in their
  // place), and its slower sampler publishes less often than a period: the endings this
  // measures are a release build's.
  if (QUARTZ_SANITIZED) GTEST_SKIP() << "a sanitizer changes how a program ends";
  const Ending ending = GetParam();
  const std::string capture = (dir / "run.qcap").string();
  Launch l;
  l.argv = {kQuartz,
            "run",
            "--store",
            store,
            "-o",
            capture,
            "--",
            std::string(QUARTZ_E2E_DIR) + "/abrupt_end",
            ending.mode,
            std::to_string(ending.ms),
            std::to_string(ending.objects)};
  const CommandResult r = launch(l);
  EXPECT_EQ(r.signal, ending.signal) << "quartz ends as the program did: " << r.err;
  if (ending.signal == 0) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  if (ending.seen) {
    EXPECT_EQ(r.err.find("covers the run to"), std::string::npos) << "a final capture: " << r.err;
  } else {
    EXPECT_NE(r.err.find("covers the run to"), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.err.find("no capture"), std::string::npos) << r.err;

  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json run = json::parse(report.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(run.is_discarded()) << report.out;
  const double wall_s = std::stod(printed_values(r.out)["wall_ms"]) * 1e-3;
  const double period_s = run["sampling"]["period_s"];
  const double elapsed_s = run["elapsed_s"];
  // Covered to its last snapshot, due within a period of its end and on time until half a
  // period late (period.h); and nothing past it (the run also holds what runs before main:
  // the loader's constructors, the program's).
  EXPECT_LE(wall_s - elapsed_s, 1.5 * run["sampling"]["period_longest_s"].get<double>())
      << "the stored run's end against the program's clock";
  EXPECT_LE(elapsed_s - wall_s, 2 * period_s) << "nothing counted after the program's end";
  EXPECT_NEAR(run["program_totals"]["normalized_s"].get<double>(), elapsed_s, period_s)
      << "the root's normalized time";

  // Its last phase, a procedure of its own, has the time the program's clock gave it: the
  // amendments of a capture too big to publish every period carry what it did since
  // (published every 1-2 s, the last one could be from before the phase began).
  const double phase_cpu_s = std::stod(printed_values(r.out)["phase_cpu_ms"]) * 1e-3;
  const json* phase = nullptr;
  for (const json& row : run["procedures"]) {
    if (row["name"] == "work_until") phase = &row;
  }
  ASSERT_NE(phase, nullptr) << run["procedures"].dump(1);
  if (ending.objects && !ending.seen) {
    EXPECT_TRUE(run.contains("counts_elapsed_s")) << "amended after its last whole capture";
  }
  // Within a period at either end of the phase, and the sampled shares' 3%.
  EXPECT_NEAR((*phase)["processor_s"].get<double>(), phase_cpu_s, 2 * period_s + 0.03 * phase_cpu_s)
      << "work_until's processor time against its thread's clock";

  const std::optional<Capture> kept = read_capture_file(capture);
  ASSERT_TRUE(kept);
  expect_possible_figures(kept->run);
}

INSTANTIATE_TEST_SUITE_P(
    Endings, AbruptEnd,
    ::testing::Values(Ending{"kill", 300, SIGKILL, false}, Ending{"segv", 300, SIGSEGV, false},
                      Ending{"_exit", 300, 0, true}, Ending{"quick_exit", 300, 0, true},
                      Ending{"abort", 300, SIGABRT, true}, Ending{"kill", 1300, SIGKILL, false},
                      Ending{"kill", 600, SIGKILL, false, 125000}),
    [](const ::testing::TestParamInfo<Ending>& info) {
      std::string name = info.param.mode;
      if (name[0] == '_') name = "underscore" + name;
      name += "_after_" + std::to_string(info.param.ms) + "ms";
      if (info.param.objects) name += "_" + std::to_string(info.param.objects) + "_objects";
      return name;
    });

}  // namespace
}  // namespace quartz::test
