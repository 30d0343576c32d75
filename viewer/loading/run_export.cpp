#include "viewer/loading/run_export.h"

#include "export/export.h"

namespace quartz::viewer {

const ExportFormat* export_format_named(const std::string& name) {
  for (const ExportFormat& format : kExportFormats) {
    if (name == format.name) return &format;
  }
  return nullptr;
}

bool can_export(const RunData& run, const ExportFormat& format) {
  return !format.needs_trace || run.has_trace;
}

void export_run(const RunData& run, const std::string& format, const std::string& output) {
  // For a run of a store, `source` is the store its trace is in; a capture's trace is found
  // next to it (profile::trace_opener).
  exports::write_export({format, output, ""}, run, run.view, run.source);
}

}  // namespace quartz::viewer
