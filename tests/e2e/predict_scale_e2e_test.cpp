// End-to-end: predictions of a traced program with many objects stay linear in the trace
// (issue 9 item 8). A thread that takes 20,000 mutexes one after another hands its critical
// path to each mutex's next holder: a replay that copied the path's composition at each
// hand-off grew with objects times events (10 GB and 40 s for 20,000 objects, measured
// 2026-11-24). The truth is the kernel's accounting of the predictor's memory (wait4), and
// the program's own count of its locks. Speed figures: bench/predict_scale.sh.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "harness.h"

namespace quartz::test {
namespace {

class PredictScale : public ScratchTest {};

TEST_F(PredictScale, ACriticalPathThroughTwentyThousandLocksTakesMemoryOfTheTraceOnly) {
  const CommandResult run =
      run_command({kQuartz, "run", "-q", "--trace", "--trace-capacity", "262144", "--store", store,
                   "--", std::string(QUARTZ_E2E_DIR) + "/many_locks", "20000"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(printed_values(run.out)["locks"], "20000");
  const CommandResult predicted =
      run_command({kQuartz, "predict", "--cores", "1", "--json", "--store", store});
  ASSERT_EQ(predicted.exit_code, 0) << predicted.err;
  const nlohmann::json j = nlohmann::json::parse(predicted.out);
  EXPECT_GE(j["trace"]["events"].get<double>(), 2 * 20000);
  EXPECT_FALSE(j["critical_path"]["locks"].empty());
  // The trace is a few MB; its steps and the path's pieces, tens. Not objects x events.
  // (Under ASan its allocator's shadow and quarantine are in the figure: Release only.)
  if (!QUARTZ_SANITIZED) {
    EXPECT_LT(predicted.max_rss_kb, 400 * 1024) << "peak memory of quartz predict";
  }
}

}  // namespace
}  // namespace quartz::test
