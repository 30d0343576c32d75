// End-to-end: `quartz run --follow-exec` stores every program of the tree as its own run,
// linked to the run of the program that started it (issue 10 item 4): a shell script that
// runs two instrumented programs one after the other (fork and exec) and then execs a
// third in place. The truth is the script itself (which programs, with which arguments)
// and each program's own wall clock.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
const std::string kAbruptEnd = std::string(QUARTZ_E2E_DIR) + "/abrupt_end";

class FollowExec : public ScratchTest {
 protected:
  // A script running `abrupt_end exit 100`, then `exit 150`, then exec'ing `LAST 200`.
  std::string script(const std::string& last) {
    const std::string path = (dir / "chain.sh").string();
    std::ofstream(path) << "#!/bin/sh\n"
                        << kAbruptEnd << " exit 100\n"
                        << kAbruptEnd << " exit 150\n"
                        << "exec " << kAbruptEnd << " " << last << " 200\n";
    chmod(path.c_str(), 0755);
    return path;
  }
  CommandResult run(const std::vector<std::string>& flags, const std::string& last) {
    std::vector<std::string> argv{kQuartz, "run", "--store",
                                  store,   "-o",  (dir / "c.qcap").string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("--");
    argv.push_back(script(last));
    return run_command(argv);
  }
  json report(int run) {
    const CommandResult r =
        run_command({kQuartz, "report", "--store", store, "--json", std::to_string(run)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  }
};

TEST_F(FollowExec, EveryProgramIsARunLinkedToItsParent) {
  const CommandResult r = run({"--follow-exec"}, "exit");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json shell = report(1);
  ASSERT_FALSE(shell.is_discarded());
  EXPECT_EQ(shell["child_runs"], json({2, 3, 4})) << r.err;
  const char* milliseconds[] = {"100", "150", "200"};
  for (int run = 2; run <= 4; ++run) {
    SCOPED_TRACE(run);
    const json child = report(run);
    ASSERT_FALSE(child.is_discarded());
    EXPECT_EQ(child["parent_run"], 1);
    EXPECT_EQ(child["arguments"], json({kAbruptEnd, "exit", milliseconds[run - 2]}));
    bool computes = false;
    for (const json& p : child["procedures"]) computes |= p["name"] == "compute";
    EXPECT_TRUE(computes) << "its own procedures";
    // Its own elapsed time: the program's, not the script's.
    EXPECT_NEAR(child["elapsed_s"].get<double>(), 0.05 * (run), 0.02);
  }
}

// The program exec'd in place is killed: its run is still stored, to its end.
TEST_F(FollowExec, AKilledProgramOfTheTreeIsStored) {
  // Its end is the shared capture's last publication, which a sanitizer's slower sampler
  // makes less often than a period (abrupt_end_e2e_test.cpp skips alike).
  if (QUARTZ_SANITIZED) GTEST_SKIP() << "a sanitizer's sampler publishes less often";
  const CommandResult r = run({"--follow-exec"}, "kill");
  EXPECT_EQ(r.signal, SIGKILL) << r.err;
  const json last = report(4);
  ASSERT_FALSE(last.is_discarded()) << r.err;
  EXPECT_EQ(last["parent_run"], 1);
  // Its elapsed time runs from before main (the runtime starts first) to its last snapshot,
  // due at most one period (the longest the sampler's schedule took) before the kill, and
  // on time until half a period late (period.h): a period and a half.
  auto printed = printed_values(r.out);
  const double elapsed_s = last["elapsed_s"].get<double>();
  const double since_main_s = std::stod(printed["wall_ms"]) * 1e-3;
  EXPECT_LE(since_main_s - elapsed_s, 1.5 * last["sampling"]["period_longest_s"].get<double>());
  // Nor more than since the program before it ended (each prints end_realtime_ns); 1 ms for
  // a snapshot between its last line and the kill.
  std::vector<double> ends_s;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("end_realtime_ns=")) ends_s.push_back(std::stod(line.substr(16)) * 1e-9);
  }
  ASSERT_EQ(ends_s.size(), 3u) << r.out;
  EXPECT_LE(elapsed_s, ends_s[2] - ends_s[1] + 1e-3);
}

// Without --follow-exec only the script is profiled: one run, no other capture.
TEST_F(FollowExec, WithoutTheFlagOnlyTheProgramIsProfiled) {
  const CommandResult r = run({}, "exit");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CommandResult list = run_command({kQuartz, "list", "--store", store});
  EXPECT_NE(list.out.find("    1 "), std::string::npos) << list.out;
  EXPECT_EQ(list.out.find("    2 "), std::string::npos) << list.out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(e.path().filename().string().find(".exec-"), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace quartz::test
