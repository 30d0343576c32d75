#include "invariants.h"

#include <gtest/gtest.h>

#include "analysis/diagnosis.h"
#include "analysis/diagnosis_check.h"
#include "analysis/invariants.h"
#include "analysis/profile_view.h"

namespace quartz::test {

void expect_possible_figures(const profile::Run& run) {
  for (const std::string& violation : analysis::invariant_violations(run)) {
    ADD_FAILURE() << violation;
  }
  const analysis::ProfileView view = analysis::analyze(run);
  for (const std::string& line : analysis::finding_contradictions(view, analysis::diagnose(view))) {
    ADD_FAILURE() << line;
  }
}

}  // namespace quartz::test
