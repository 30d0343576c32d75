// File ▸ Export and `quartz-view --export`: a run written in the formats of `quartz report
// --format F`, by the same code (export/), so the files are the same.
#pragma once

#include <string>

#include "viewer/loading/run_data.h"

namespace quartz::viewer {

struct ExportFormat {
  const char* name;       // as `quartz report --format` names it
  const char* title;      // for the menu
  const char* file_name;  // suggested by the file dialog; empty: the output is a directory
  const char* filter;     // for the file dialog
  bool needs_trace;       // only a run with a trace has it
};

inline constexpr ExportFormat kExportFormats[] = {
    {"pprof", "&pprof profile (go tool pprof)…", "profile.pb.gz", "pprof profiles (*.pb.gz)",
     false},
    {"collapsed", "&Collapsed stacks (flame graphs)…", "profile.folded",
     "Collapsed stacks (*.folded *.txt)", false},
    {"chrome-trace", "Chrome/Perfetto &trace…", "trace.json", "Trace JSON (*.json)", true},
    {"csv", "Every table as CS&V, into a folder…", "", "", false},
};

// The format of that name, or nullptr.
const ExportFormat* export_format_named(const std::string& name);

// Whether `run` can be exported in `format` (a trace export needs a trace).
bool can_export(const RunData& run, const ExportFormat& format);

// Writes `run` in the format named, to `output` (a file; for csv, a directory). Throws
// exports::ExportError with one line for the user.
void export_run(const RunData& run, const std::string& format, const std::string& output);

}  // namespace quartz::viewer
