#include "export/export.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "export/chrome_trace.h"
#include "export/collapsed.h"
#include "export/csv.h"
#include "export/pprof.h"
#include "profile/store.h"

namespace quartz::exports {
namespace {

// Runs `write` on the output file, or on stdout when there is none.
template <typename Write>
void to_output(const std::string& path, std::ios::openmode mode, Write write) {
  if (path.empty()) {
    write(std::cout);
    std::cout.flush();
    return;
  }
  std::ofstream file(path, mode | std::ios::out | std::ios::trunc);
  if (!file) throw ExportError(path + ": cannot write: " + std::strerror(errno));
  write(file);
  file.close();
  if (!file) throw ExportError(path + ": cannot write: " + std::strerror(errno));
}

std::unique_ptr<profile::TraceSource> open_trace(const profile::OpenedRun& opened,
                                                 const std::string& store_path) {
  try {
    return profile::trace_opener(opened, store_path)();
  } catch (const profile::OpenRunError& e) {
    throw ExportError(e.what());
  }
}

void write_csv_tables(const ExportRequest& request, const analysis::ProfileView& view) {
  if (!request.table.empty()) {
    const auto& tables = csv_tables();
    if (std::find(tables.begin(), tables.end(), request.table) == tables.end()) {
      std::string names;
      for (const std::string& t : tables) names += (names.empty() ? "" : ", ") + t;
      throw ExportError("--table: no table '" + request.table + "' (tables: " + names + ")");
    }
    to_output(request.output, std::ios::binary,
              [&](std::ostream& out) { write_csv(out, view, request.table); });
    return;
  }
  if (request.output.empty()) {
    throw ExportError(
        "--format csv writes every table into a directory: give -o DIR, or --table NAME");
  }
  std::error_code error;
  std::filesystem::create_directories(request.output, error);
  if (error)
    throw ExportError(request.output + ": cannot create the directory: " + error.message());
  for (const std::string& table : csv_tables()) {
    const std::string path = (std::filesystem::path(request.output) / (table + ".csv")).string();
    to_output(path, std::ios::binary, [&](std::ostream& out) { write_csv(out, view, table); });
  }
}

}  // namespace

void write_export(const ExportRequest& request, const profile::OpenedRun& opened,
                  const analysis::ProfileView& view, const std::string& store_path) {
  if (!request.table.empty() && request.format != "csv") {
    throw ExportError("--table goes with --format csv");
  }
  const std::string& f = request.format;
  if (f != "pprof" && f != "collapsed" && f != "chrome-trace" && f != "csv") {
    throw ExportError("--format: unknown format '" + request.format +
                      "' (text, json, pprof, collapsed, chrome-trace, csv)");
  }
  if (request.format == "csv") return write_csv_tables(request, view);
  if (request.format == "pprof") {
    if (request.output.empty() && isatty(1)) {
      throw ExportError("--format pprof writes gzipped bytes: give -o FILE");
    }
    return to_output(request.output, std::ios::binary,
                     [&](std::ostream& out) { write_pprof(out, opened.run, view); });
  }
  if (request.format == "collapsed") {
    return to_output(request.output, {}, [&](std::ostream& out) { write_collapsed(out, view); });
  }
  profile::TraceReader reader(open_trace(opened, store_path));
  to_output(request.output, {},
            [&](std::ostream& out) { write_chrome_trace(out, opened.run, view, reader); });
}

}  // namespace quartz::exports
