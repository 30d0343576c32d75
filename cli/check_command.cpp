// `quartz check`: the figures a run cannot have (analysis/invariants.h) and the findings
// whose evidence contradicts them (analysis/diagnosis_check.h), one a line.
#include <iostream>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/diagnosis_check.h"
#include "analysis/invariants.h"
#include "analysis/profile_view.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace quartz::cli {

int check_command(const std::vector<std::string>& args) {
  Arguments a(args, "check");
  std::string store_path = default_store();
  std::string which;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    if (!which.empty()) throw UsageError("check: more than one run given");
    which = a.next();
  }
  const profile::OpenedRun opened = open_named_run("check", which, store_path);
  std::vector<std::string> violations = analysis::invariant_violations(opened.run);
  const analysis::ProfileView view = analysis::analyze(opened.run);
  for (std::string& line : analysis::finding_contradictions(view, analysis::diagnose(view))) {
    violations.push_back(std::move(line));
  }
  if (violations.empty()) std::cout << "ok\n";
  for (const std::string& line : violations) std::cout << line << "\n";
  return violations.empty() ? 0 : 1;
}

}  // namespace quartz::cli
