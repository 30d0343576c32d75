// Findings whose evidence contradicts the run's own figures (issue 41): each property's
// severity claims some time, which must be at most the figure of the report that it
// explains (docs/design.md "Diagnosis", column "at most"). `quartz check` prints them with
// the run's invariant violations (analysis/invariants.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/profile_view.h"

namespace quartz::analysis {

// One line of text for each finding of `findings` (diagnose(view)) that claims more time
// than the figures it rests on; empty: none.
std::vector<std::string> finding_contradictions(const ProfileView& view,
                                                const std::vector<Finding>& findings);

}  // namespace quartz::analysis
