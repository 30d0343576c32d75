// `quartz diagnose`: a run's findings (analysis/diagnosis.h), most severe first.
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/diagnosis.h"
#include "analysis/diagnosis_report.h"
#include "analysis/profile_view.h"
#include "analysis/row_json.h"
#include "analysis/text_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace quartz::cli {

int diagnose_command(const std::vector<std::string>& args) {
  Arguments a(args, "diagnose");
  std::string store_path = default_store();
  std::string which;
  bool json = false;
  uint64_t min_percent = 1;
  analysis::ViewOptions view_options;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.flag("--json")) {
      json = true;
      continue;
    }
    if (a.number("--min-severity", 0, 100, &min_percent)) continue;
    if (a.flag("--all-frames")) {
      view_options.all_frames = true;
      continue;
    }
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    if (!which.empty()) throw UsageError("diagnose: more than one run given");
    which = a.next();
  }
  const profile::OpenedRun opened = open_named_run("diagnose", which, store_path);
  view_options.contexts = view_options.children = false;  // the findings need neither
  const analysis::ProfileView view = analysis::analyze(opened.run, view_options);
  const std::vector<analysis::Finding> findings =
      analysis::diagnose(view, static_cast<double>(min_percent) / 100);
  if (json) {
    std::cout << nlohmann::json{{"run", opened.label},
                                {"elapsed_s", view.elapsed_s},
                                {"findings", analysis::findings_json(findings)}}
                     .dump(2)
              << "\n";
  } else {
    std::ostringstream text;  // within kColumns at the end
    text << "Diagnosis of " << opened.label << " (" << view.program << ")\n";
    analysis::print_findings(text, findings);
    std::cout << analysis::text::wrap_lines(text.str());
  }
  return 0;
}

}  // namespace quartz::cli
