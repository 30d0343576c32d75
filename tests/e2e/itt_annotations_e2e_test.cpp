// End-to-end: a program's own ITT annotations (tests/e2e/programs/itt_annotations.c loads
// the collector as ittnotify's static part does): under `quartz run` its named lock and
// threads are the report's, counted as the program counts them; without libquartz the
// collector it inherits fills nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "harness.h"

namespace quartz::test {
namespace {

using nlohmann::json;
// Built plain (no hooks, not linked to libquartz): `quartz run` preloads the runtime.
const std::string kProgram = std::string(QUARTZ_E2E_DIR) + "/itt_annotations";
const std::string kCollector =
    (std::filesystem::path(QUARTZ_LIBRARY).parent_path() / "libquartz_itt.so").string();

class IttAnnotations : public ScratchTest {};

TEST_F(IttAnnotations, TheProgramsLockAndThreadsAreNamedAndCounted) {
  const CommandResult r = run_command({kQuartz, "run", "-q", "--store", store, "--", kProgram});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> printed = printed_values(r.out);
  EXPECT_EQ(printed["collector"], "loaded");
  EXPECT_EQ(printed["filled"], "5");  // all but mark_create
  const CommandResult report = run_command({kQuartz, "report", "--store", store, "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json run = json::parse(report.out, nullptr, /*allow_exceptions=*/false);
  ASSERT_FALSE(run.is_discarded());
  EXPECT_EQ(run["sampling"]["itt"], "collector");
  const json* lock = nullptr;
  for (const json& l : run["locks"]) {
    if (l["name"] == "jobs_lock") lock = &l;
  }
  ASSERT_NE(lock, nullptr) << run["locks"].dump();
  EXPECT_EQ((*lock)["acquisitions"].get<double>(), std::stod(printed["acquisitions"]));
  EXPECT_GT((*lock)["hold_s"].get<double>(), 0);
  int named = 0;
  for (const json& t : run["threads"])
    named += t["name"] == std::string("annotated worker").substr(0, 15);
  EXPECT_EQ(named, 2) << run["threads"].dump();
}

// A program started without the preload (here: run directly, the variable set as libquartz
// sets it) loads the stub, which finds no libquartz and fills nothing.
TEST_F(IttAnnotations, WithoutLibquartzTheCollectorFillsNothing) {
  const CommandResult r = run_command({kProgram}, {{"INTEL_LIBITTNOTIFY64", kCollector}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> printed = printed_values(r.out);
  EXPECT_EQ(printed["collector"], "loaded");
  EXPECT_EQ(printed["filled"], "0");
  EXPECT_EQ(printed["acquisitions"], "100");
}

}  // namespace
}  // namespace quartz::test
