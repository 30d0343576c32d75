// Findings (analysis/diagnosis.h) as text: `quartz diagnose`, and the top of `quartz
// report` (row_json.h: as JSON).
#pragma once

#include <ostream>
#include <vector>

#include "analysis/diagnosis.h"

namespace quartz::analysis {

// Every finding with its evidence and advice (`quartz diagnose`).
void print_findings(std::ostream& out, const std::vector<Finding>& findings);
// The program's `top` findings, one line each (the top of `quartz report`).
void print_findings_summary(std::ostream& out, const std::vector<Finding>& findings, size_t top);

}  // namespace quartz::analysis
