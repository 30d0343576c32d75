// `quartz report`: a run's profile, as text or JSON, or exported (export/), with its stored
// what-ifs.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "analysis/profile_view.h"
#include "analysis/report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "export/export.h"
#include "profile/capture.h"
#include "profile/open_run.h"
#include "profile/store.h"

namespace quartz::cli {

int report_command(const std::vector<std::string>& args) {
  Arguments a(args, "report");
  std::string store_path = default_store();
  std::string format = "text", output, table;
  uint64_t top = 20;
  std::string which;
  analysis::ViewOptions view_options;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.flag("--json")) {
      format = "json";
      continue;
    }
    if (a.value("--format", &format) || a.value("-o", &output) || a.value("--output", &output) ||
        a.value("--table", &table)) {
      continue;
    }
    if (a.number("--top", 1, 100000, &top)) continue;
    if (a.flag("--all-frames")) {
      view_options.all_frames = true;
      continue;
    }
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    if (!which.empty()) throw UsageError("report: more than one run given");
    which = a.next();
  }

  Progress progress("report");
  progress.step("reading and naming the run");
  profile::OpenedRun opened = open_named_run("report", which, store_path);
  analysis::ReportOptions options;
  options.top = top;
  options.run_label = opened.label;
  if (opened.id) {
    const profile::Store store(store_path, profile::StoreAccess::read_only);
    for (auto& p : store.predictions(*opened.id)) {
      options.what_ifs.push_back({p.made, p.question, p.json});
    }
    options.parent_run = store.parent_run(*opened.id);
    options.child_runs = store.child_runs(*opened.id);
  }
  progress.step("analysing");
  // The text shows the call graph of its top procedures, not the calling-context tree.
  if (format == "text" && table.empty()) {
    view_options.contexts = false;
    view_options.children_of = top;
  }
  analysis::ProfileView view = analysis::analyze_taking_contexts(opened.run, view_options);
  progress.step("writing the report");
  if ((format != "text" && format != "json") || !table.empty()) {
    try {
      exports::write_export({format, output, table}, opened, view, store_path);
    } catch (const exports::ExportError& e) {
      throw UsageError(std::string("report: ") + e.what());
    }
    keep_until_exit(std::move(view));
    keep_until_exit(std::move(opened));
    return 0;
  }
  std::ofstream file;
  if (!output.empty()) {
    file.open(output);
    if (!file) throw UsageError("report: " + output + ": cannot write: " + std::strerror(errno));
  }
  std::ostream& out = output.empty() ? std::cout : file;
  if (format == "json") {
    analysis::print_json_report(out, view, options);
  } else {
    analysis::print_text_report(out, view, options);
  }
  if (!output.empty()) {  // standard output is checked by main()
    file.close();
    if (!file) throw UsageError("report: " + output + ": cannot write: " + std::strerror(errno));
  }
  keep_until_exit(std::move(view));
  keep_until_exit(std::move(opened));
  return 0;
}

}  // namespace quartz::cli
