// quartz-view's command line: what to open (a store to pick a run from, or a run as
// `quartz report` names it) and the batch modes that open no window: a screenshot (tests and
// the docs) and an export (as File ▸ Export writes it).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "profile/store.h"

namespace quartz::viewer {

// A bad command line: printed as "quartz-view: <message>", exit status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr const char* kViewNames[] = {"hierarchy", "procedures", "locks",
                                             "threads",   "run",        "what-ifs",
                                             "findings",  "scaling",    "comparison"};

struct ViewerOptions {
  std::string target;      // the operand: a store, a capture, a run number or "latest"
  std::string store;       // --store STORE; empty when not given
  std::string screenshot;  // --screenshot FILE: render the window to this PNG and exit
  std::string view = "hierarchy";
  std::string select;         // --select NAME: the row to select in that view
  std::string export_format;  // --export FORMAT: write the run as File ▸ Export does, and exit
  std::string output;         // --output PATH: where --export writes
  bool help = false;
  bool version = false;

  bool batch() const { return !screenshot.empty() || !export_format.empty(); }
};

// Throws UsageError.
ViewerOptions parse_command_line(const std::vector<std::string>& args);
std::string usage();

// What the window opens first.
struct OpenRequest {
  enum Kind { kNothing, kPickRun, kRun } kind = kNothing;
  std::string which;     // for kRun: as open_run() takes it
  std::string store;     // the store (kPickRun, and kRun by number or "latest")
  std::string no_store;  // kNothing: one line saying that no store was found, and what to do
};

// `default_store` is used when no store is named ($QUARTZ_STORE or ./quartz.db, as for
// `quartz`): with no operand the viewer opens its latest run; with none there, nothing
// (`no_store` says why). A store named without a run is picked from in a window, and is its
// latest run in a batch mode. Throws UsageError (a batch mode with nothing to show) or
// LoadError (a store that is missing, not a Quartz store, or empty).
OpenRequest resolve_request(const ViewerOptions& options, const std::string& default_store);

// The runs of a store, for the run picker. Throws LoadError.
std::vector<profile::RunSummary> list_runs(const std::string& store_path);

// $QUARTZ_STORE, or ./quartz.db: the store `quartz` uses when none is named.
std::string default_store();

}  // namespace quartz::viewer
