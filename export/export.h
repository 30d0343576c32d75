// `quartz report --format F`: the formats other than the report's own text and JSON.
#pragma once

#include <stdexcept>
#include <string>

#include "analysis/profile_view.h"
#include "profile/open_run.h"

namespace quartz::exports {

// A request that cannot be met (an unknown format or table, an unwritable output, a run
// without a trace): one line for the user.
class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExportRequest {
  std::string format;  // pprof, collapsed, chrome-trace, csv
  std::string output;  // a file (csv: a directory, unless `table` is given); empty: stdout
  std::string table;   // csv only: one table (csv_tables()) instead of all of them
};

// Writes `view` of `opened` as the request says. The trace of a chrome-trace export is the
// run's trace in the store at `store_path`, or CAPTURE.trace next to a capture file.
void write_export(const ExportRequest& request, const profile::OpenedRun& opened,
                  const analysis::ProfileView& view, const std::string& store_path);

}  // namespace quartz::exports
