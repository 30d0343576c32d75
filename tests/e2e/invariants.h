// Figures every run must have, whatever the program (issue 9 item 3): checked against the
// run's own clocks, so any end-to-end test can ask them of the capture it got.
#pragma once

#include "profile/run.h"

namespace quartz::test {

// Fails the current test with each line of analysis::invariant_violations(run)
// (analysis/invariants.h) and of the findings' contradictions (analysis/diagnosis_check.h):
// the rules `quartz check` applies too.
void expect_possible_figures(const profile::Run& run);

}  // namespace quartz::test
