// `quartz compare A B`: what changed between two runs, or two series of runs given as
// comma-separated lists (analysis/comparison.h); `--fail-if-slower PCT` exits 1 when B is
// more than PCT% slower than A, beyond noise.
#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/comparison.h"
#include "analysis/profile_view.h"
#include "analysis/row_json.h"
#include "analysis/text_format.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "format/capture_format.h"

namespace quartz::cli {
namespace {

using analysis::Change;
using analysis::text::seconds;

std::string relative(const Change& c) {
  const std::optional<double> r = c.relative();
  return r ? analysis::text::format("%+.1f%%", 100 * *r) : std::string("new");
}

void print_changes(std::ostream& out, const std::string& title, const std::vector<Change>& rows) {
  out << "\n" << title << " whose normalized time changed beyond noise\n";
  if (rows.empty()) {
    out << "  none\n";
    return;
  }
  out << "           A           B   change       noise  name\n";
  for (const Change& c : rows) {
    char line[96];
    std::snprintf(line, sizeof line, "  %10s  %10s  %7s  %10s  ", seconds(c.a_s).c_str(),
                  seconds(c.b_s).c_str(), relative(c).c_str(), seconds(c.noise_s).c_str());
    out << line << analysis::text::name_at(c.name, c.location, analysis::text::kColumns - 47)
        << "\n";
  }
}

// One side of the comparison: the runs of a comma-separated list.
struct Side {
  std::string label;
  std::vector<analysis::ProfileView> views;
  std::set<std::string> machines;  // "HOST (N processors)" of its runs
  std::set<uint32_t> processors;   // of its runs
};

// "A on h1 (2 processors), B on h2 (4 processors)" when the sides ran on different machines,
// and whether their processors differ (a change is then the machines' as much as the
// program's); "" on one machine.
std::string machines_line(const Side& a, const Side& b, bool* processors_differ) {
  *processors_differ = false;
  if (a.machines == b.machines) return "";
  *processors_differ = a.processors != b.processors;
  const auto join = [](const std::set<std::string>& s) {
    std::string out;
    for (const std::string& m : s) out += (out.empty() ? "" : ", ") + m;
    return out;
  };
  return "A on " + join(a.machines) + ", B on " + join(b.machines) +
         (*processors_differ ? ": their processors differ, and so may the figures" : "");
}

Side open_side(const std::string& list, const std::string& store_path) {
  Side side;
  std::vector<std::string> labels;
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string which = list.substr(start, comma - start);
    if (which.empty()) throw UsageError("compare: empty run in '" + list + "'");
    profile::OpenedRun run = open_named_run("compare", which, store_path);
    labels.push_back(run.label);
    side.processors.insert(run.run.processors);
    side.machines.insert(run.run.text(capture::run_keys::kHost) + " (" +
                         std::to_string(run.run.processors) +
                         (run.run.processors == 1 ? " processor)" : " processors)"));
    side.views.push_back(analysis::analyze_taking_contexts(run.run));
    start = comma + 1;
  }
  // "run 1 (s.db)", "run 2 (s.db)" read as "runs 1, 2 (s.db)".
  const size_t paren = labels[0].rfind(" (");
  const std::string store = paren == std::string::npos ? "" : labels[0].substr(paren);
  const bool one_store = labels.size() > 1 && !store.empty() &&
                         std::all_of(labels.begin(), labels.end(), [&](const std::string& l) {
                           return l.rfind("run ", 0) == 0 && l.size() > store.size() &&
                                  l.compare(l.size() - store.size(), store.size(), store) == 0;
                         });
  for (const std::string& l : labels) {
    if (!side.label.empty()) side.label += ", ";
    side.label += one_store ? l.substr(4, l.size() - 4 - store.size()) : l;
  }
  if (one_store) side.label = "runs " + side.label + store;
  return side;
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  Arguments arguments(args, "compare");
  std::string store_path = default_store();
  std::vector<std::string> runs;
  bool as_json = false;
  std::string fail_text;
  while (!arguments.done()) {
    if (arguments.value("--store", &store_path)) continue;
    if (arguments.flag("--json")) {
      as_json = true;
      continue;
    }
    if (arguments.value("--fail-if-slower", &fail_text)) continue;
    if (arguments.peek().rfind("-", 0) == 0) arguments.unknown();
    runs.push_back(arguments.next());
  }
  if (runs.size() != 2) throw UsageError("compare: give two runs, A and B");
  double fail_percent = -1;
  if (!fail_text.empty()) {
    char* end = nullptr;
    fail_percent = std::strtod(fail_text.c_str(), &end);
    if (*end != '\0' || !(fail_percent >= 0)) {
      throw UsageError("compare: --fail-if-slower wants a percentage, not '" + fail_text + "'");
    }
  }
  const Side a = open_side(runs[0], store_path), b = open_side(runs[1], store_path);
  const analysis::Comparison c = analysis::compare(a.views, b.views);
  const bool slower = fail_percent >= 0 && analysis::slower_than(c, fail_percent);
  if (as_json) {
    nlohmann::json out;
    out["a"] = a.label;
    out["b"] = b.label;
    bool processors_differ = false;
    if (!machines_line(a, b, &processors_differ).empty()) {
      out["machines_a"] = a.machines;
      out["machines_b"] = b.machines;
      out["processors_differ"] = processors_differ;
    }
    out["runs_a"] = c.runs_a;
    out["runs_b"] = c.runs_b;
    out["noise_includes_run_to_run"] = c.run_to_run;
    out["elapsed"] = analysis::change_json(c.elapsed);
    out["procedures"] = analysis::changes_json(c.procedures);
    out["locks"] = analysis::changes_json(c.locks);
    out["appeared"] = analysis::findings_json(c.appeared);
    out["went_away"] = analysis::findings_json(c.went_away);
    out["slower"] = slower;
    std::cout << out.dump(2) << "\n";
  } else {
    std::ostringstream text;  // within kColumns at the end
    const std::string& program_a = a.views.front().program;
    const std::string& program_b = b.views.front().program;
    text << "Comparison of A, " << a.label << ", and B, " << b.label << "\n"
         << "  program   " << program_b
         << (program_a == program_b ? "" : " (A: " + program_a + ")");
    bool processors_differ = false;
    const std::string machines = machines_line(a, b, &processors_differ);
    if (!machines.empty()) text << "\n  machines  " << machines;
    text << "\n  noise     "
         << (c.run_to_run ? "sampling and the runs' spread (99.9%)"
                          : "sampling only: give several runs a side (A1,A2,A3) to "
                            "include run-to-run variation")
         << "\n  elapsed   " << seconds(c.elapsed.a_s) << " -> " << seconds(c.elapsed.b_s) << "  "
         << relative(c.elapsed) << "  (noise " << seconds(c.elapsed.noise_s) << ")"
         << (c.elapsed.beyond_noise() ? "" : ": within noise") << "\n";
    print_changes(text, "Procedures", c.procedures);
    print_changes(text, "Synchronization objects", c.locks);
    text << "\nFindings that appeared in B\n";
    if (c.appeared.empty()) text << "  none\n";
    for (const auto& f : c.appeared) {
      text << "  " << analysis::property_name(f.property) << ": " << f.subject << "\n";
    }
    text << "Findings that went away\n";
    if (c.went_away.empty()) text << "  none\n";
    for (const auto& f : c.went_away) {
      text << "  " << analysis::property_name(f.property) << ": " << f.subject << "\n";
    }
    std::cout << analysis::text::wrap_lines(text.str());
  }
  if (slower) {
    std::cerr << "quartz: compare: B is " << relative(c.elapsed) << " slower than A (over "
              << fail_text << "%, beyond noise)\n";
    return 1;
  }
  return 0;
}

}  // namespace quartz::cli
