// `quartz check`: the figures a run cannot have (analysis/invariants.h), one a line.
#include <iostream>
#include <string>
#include <vector>

#include "analysis/invariants.h"
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
  const std::vector<std::string> violations = analysis::invariant_violations(opened.run);
  if (violations.empty()) std::cout << "ok\n";
  for (const std::string& line : violations) std::cout << line << "\n";
  return violations.empty() ? 0 : 1;
}

}  // namespace quartz::cli
