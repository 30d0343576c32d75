// `quartz report`: the profile for terminals (Quartz's hierarchical report, after the
// paper's Figure 1) and as JSON. Both print a ProfileView; neither computes a metric.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/profile_view.h"
#include "profile/store.h"

namespace quartz::analysis {

struct ReportOptions {
  size_t top = 20;         // rows in the ranked tables
  size_t graph_depth = 3;  // levels of the call graph walked top-down
  std::string run_label;   // e.g. "run 3 (quartz.db)"
  // --follow-exec: the run of the program that started this one, and those it started.
  std::optional<int64_t> parent_run;
  std::vector<int64_t> child_runs;
  std::vector<profile::StoredPrediction> what_ifs;  // the run's `quartz predict` answers
};

void print_text_report(std::ostream& out, const ProfileView& view, const ReportOptions& options);
void print_json_report(std::ostream& out, const ProfileView& view,
                       const ReportOptions& options = {});

}  // namespace quartz::analysis
