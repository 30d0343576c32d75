#include "viewer/loading/command_line.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "profile/open_run.h"
#include "profile/store.h"
#include "viewer/loading/run_data.h"
#include "viewer/loading/run_export.h"

namespace quartz::viewer {

namespace {

// "pprof, collapsed, chrome-trace, csv"
std::string export_format_names() {
  std::string names;
  for (const ExportFormat& format : kExportFormats) {
    names += (names.empty() ? "" : ", ") + std::string(format.name);
  }
  return names;
}

}  // namespace

std::string usage() {
  return "usage: quartz-view [STORE | RUN] [--store STORE]\n"
         "                   [--screenshot FILE.png [--view VIEW] [--select NAME]]\n"
         "                   [--export FORMAT --output PATH]\n"
         "       quartz-view --help | --version\n"
         "  (nothing): the latest run of $QUARTZ_STORE, else ./quartz.db.\n"
         "  STORE: an experiment store, a file or a postgresql:// URI: pick one of its\n"
         "         runs.\n"
         "  RUN: a capture file, or a run number or 'latest' of the store (--store STORE,\n"
         "       else $QUARTZ_STORE or ./quartz.db), as for 'quartz report'.\n"
         "  --screenshot FILE  render the window to a PNG and exit (no display needed)\n"
         "  --view VIEW        hierarchy (default), procedures, locks, threads, run,\n"
         "                     what-ifs, findings, scaling or comparison\n"
         "  --select NAME      select the procedure, object or thread named NAME (in the\n"
         "                     hierarchy: its heaviest calling context; in what-ifs: on\n"
         "                     the newest prediction's critical path; in findings: the\n"
         "                     first finding about it; in scaling: the region); in\n"
         "                     comparison: the number of the run of the store to compare\n"
         "                     with\n"
         "  --export FORMAT    write the run as File > Export does and exit (no display\n"
         "                     needed): " +
         export_format_names() +
         ", the files of\n"
         "                     'quartz report --format FORMAT'\n"
         "  --output PATH      where --export writes (csv: a directory)\n"
         "  --version          print quartz-view's version\n";
}

ViewerOptions parse_command_line(const std::vector<std::string>& args) {
  ViewerOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (arg.size() > flag.size() && arg.compare(0, flag.size() + 1, flag + "=") == 0) {
        return arg.substr(flag.size() + 1);
      }
      if (i + 1 >= args.size() || args[i + 1].empty()) throw UsageError(flag + " needs a value");
      return args[++i];
    };
    auto is = [&](const std::string& flag) { return arg == flag || arg.rfind(flag + "=", 0) == 0; };
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--version") {
      options.version = true;
    } else if (is("--export")) {
      options.export_format = value("--export");
      if (!export_format_named(options.export_format)) {
        throw UsageError("--export: '" + options.export_format + "' is not one of " +
                         export_format_names());
      }
    } else if (is("--output")) {
      options.output = value("--output");
    } else if (is("--store")) {
      options.store = value("--store");
    } else if (is("--screenshot")) {
      options.screenshot = value("--screenshot");
    } else if (is("--view")) {
      options.view = value("--view");
      if (std::find(std::begin(kViewNames), std::end(kViewNames), options.view) ==
          std::end(kViewNames)) {
        std::string names;
        for (const char* name : kViewNames)
          names += (names.empty() ? "" : ", ") + std::string(name);
        throw UsageError("--view: '" + options.view + "' is not one of " + names);
      }
    } else if (is("--select")) {
      options.select = value("--select");
    } else if (arg.size() > 1 && arg[0] == '-') {
      throw UsageError("unknown option '" + arg + "' (see --help)");
    } else if (!options.target.empty()) {
      throw UsageError("more than one run given ('" + options.target + "', '" + arg + "')");
    } else {
      options.target = arg;
    }
  }
  if (!options.export_format.empty() && options.output.empty()) {
    throw UsageError("--export needs --output PATH");
  }
  if (options.export_format.empty() && !options.output.empty()) {
    throw UsageError("--output goes with --export");
  }
  if (!options.export_format.empty() && !options.screenshot.empty()) {
    throw UsageError("--export and --screenshot: one at a time");
  }
  return options;
}

std::vector<profile::RunSummary> list_runs(const std::string& store_path) {
  if (!profile::Store::exists(store_path)) throw LoadError(store_path + ": no such file");
  std::vector<profile::RunSummary> runs;
  try {
    runs = profile::Store(store_path, profile::StoreAccess::read_only).list();
  } catch (const std::exception& e) {
    throw LoadError(one_line(e.what()));
  }
  if (runs.empty()) throw LoadError(profile::Store::display_name(store_path) + " holds no runs");
  return runs;
}

OpenRequest resolve_request(const ViewerOptions& options, const std::string& default_store) {
  OpenRequest request;
  if (!options.target.empty() &&
      (!options.store.empty() || !(profile::Store::looks_like_store(options.target) ||
                                   profile::Store::is_server_uri(options.target)))) {
    request.kind = OpenRequest::kRun;
    request.which = options.target;
    request.store = options.store.empty() ? default_store : options.store;
    return request;
  }
  const std::string named = !options.target.empty() ? options.target : options.store;
  if (named.empty() && !profile::Store::exists(default_store)) {
    request.no_store = "no store at " + default_store +
                       " (profile a program with 'quartz run -- PROGRAM', or open a capture or "
                       "store)";
    if (options.batch()) throw UsageError("no run given, and " + request.no_store);
    return request;
  }
  request.store = named.empty() ? default_store : named;
  list_runs(request.store);  // a missing, foreign or empty store is an error now, not in a dialog
  if (named.empty() || options.batch()) {
    request.kind = OpenRequest::kRun;
    request.which = "latest";
  } else {
    request.kind = OpenRequest::kPickRun;
  }
  return request;
}

std::string default_store() {
  return profile::default_store_path();
}

}  // namespace quartz::viewer
