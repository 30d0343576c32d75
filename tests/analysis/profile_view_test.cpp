// What the profile view lists: every procedure the hooks counted, sampled or not.
#include "analysis/profile_view.h"

#include <gtest/gtest.h>

#include "profile/run.h"

namespace quartz::analysis {
namespace {

// A run of two processors in which main called `work` 100 times and `tick` twice, and the
// only sample found main running: work and tick were never seen, yet they ran.
TEST(ProfileView, ProceduresCountedButNeverSampledAreListedWithTheirCalls) {
  profile::Run run;
  run.processors = 2;
  constexpr uint64_t kMain = 0x1000, kWork = 0x2000, kTick = 0x3000;
  profile::ProcedureInfo main_procedure;
  main_procedure.address = kMain;
  main_procedure.record.normalized_self = {0, 0.002, 0};
  main_procedure.record.normalized_behalf = main_procedure.record.processor_self =
      main_procedure.record.processor_behalf = {0, 0, 0};
  for (auto& bins : main_procedure.record.runnable) bins.assign(run.runnable_bins, 0);
  run.procedures.push_back(main_procedure);
  run.edges = {{0, kMain, 1}, {kMain, kWork, 100}, {kMain, kTick, 2}};

  const ProfileView view = analyze(run);
  ASSERT_EQ(view.procedures.size(), 3u);
  EXPECT_EQ(view.procedures[0].address, kMain);
  EXPECT_EQ(view.procedures[0].calls, 1u);
  EXPECT_DOUBLE_EQ(view.procedures[0].totals.normalized_s, 0.002);
  for (size_t i : {1, 2}) {
    const ProcedureRow& unseen = view.procedures[i];
    EXPECT_EQ(unseen.calls, unseen.address == kWork ? 100u : 2u);
    EXPECT_EQ(unseen.totals.normalized_s, 0);
    EXPECT_EQ(unseen.totals.histogram_s.size(), 3u);  // as long as a sampled one's
  }
}

}  // namespace
}  // namespace quartz::analysis
