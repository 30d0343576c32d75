// `quartz report`: a run's profile, as text or JSON, with its stored what-ifs.
#include <iostream>

#include "analysis/profile_view.h"
#include "analysis/report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "profile/open_run.h"
#include "profile/store.h"

namespace quartz::cli {
namespace {

profile::OpenedRun open_named_run(const char* command, const std::string& which,
                                  const std::string& store_path) {
  try {
    return profile::open_run(which, store_path);
  } catch (const profile::OpenRunError& e) {
    throw UsageError(std::string(command) + ": " + e.what());
  }
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  Arguments a(args, "report");
  std::string store_path = default_store();
  bool json = false;
  uint64_t top = 20;
  std::string which;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.flag("--json")) {
      json = true;
      continue;
    }
    if (a.number("--top", 1, 100000, &top)) continue;
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    if (!which.empty()) throw UsageError("report: more than one run given");
    which = a.next();
  }

  profile::OpenedRun opened = open_named_run("report", which, store_path);
  analysis::ReportOptions options;
  options.top = top;
  options.run_label = opened.label;
  if (opened.id) {
    for (auto& p : profile::Store(store_path).predictions(*opened.id)) {
      options.what_ifs.push_back({p.made, p.question, p.json});
    }
  }
  const analysis::ProfileView view = analysis::analyze(opened.run);
  if (json) {
    analysis::print_json_report(std::cout, view, options);
  } else {
    analysis::print_text_report(std::cout, view, options);
  }
  return 0;
}

}  // namespace quartz::cli
