// `quartz import`: captures into the store, with their metrics and traces.
#include <filesystem>
#include <iostream>
#include <optional>
#include <span>
#include <vector>

#include "analysis/profile_view.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/progress.h"
#include "profile/capture.h"
#include "profile/mapped_file.h"
#include "profile/store.h"
#include "profile/symbolize_run.h"

namespace quartz::cli {

void store_metrics(profile::Store& store, int64_t id, const profile::Run& run) {
  const analysis::ProfileView view = analysis::analyze(run, {.contexts = false, .children = false});
  std::vector<profile::ProcedureMetric> procedures;
  for (const auto& p : view.procedures) {
    procedures.push_back({p.name, p.location, p.totals.normalized_s, p.totals.normalized_self_s,
                          p.totals.processor_s, p.calls});
  }
  std::vector<profile::LockMetric> locks;
  for (const auto& l : view.locks) {
    locks.push_back({l.name, analysis::kind_name(l.kind), l.totals.normalized_s, l.wait_s, l.hold_s,
                     l.acquisitions, l.contended, l.id});
  }
  std::vector<profile::ThreadMetric> threads;
  for (const auto& t : view.threads) {
    threads.push_back(
        {t.index, t.name, t.totals.normalized_s, t.busy_s, t.spinning_s, t.blocked_s, t.ready_s});
  }
  store.add_metrics(id, procedures, locks, threads);
}

int64_t import_capture(const std::string& capture_path, const std::string& store_path,
                       const std::string& options, const Labels& labels) {
  Progress progress("import");
  std::error_code error;
  const auto size = std::filesystem::file_size(capture_path, error);
  progress.step("reading " + capture_path +
                (error ? "" : " (" + std::to_string(size / 1'000'000) + " MB)"));
  profile::Store store(store_path);
  const auto absolute = std::filesystem::absolute(capture_path, error);
  const std::string stored_path = error ? capture_path : absolute.string();
  // Its pages are given back as they are read (parsed, then stored): the capture is never
  // resident whole beside the run (docs/performance.md "Huge runs").
  std::optional<profile::CaptureBytes> capture(std::in_place, capture_path);
  const profile::ParseOptions give_back = capture->giving_back();
  progress.step("reading the capture's records");
  profile::Run run = profile::parse_capture(capture->bytes(), capture_path, give_back);
  progress.step("naming addresses");
  profile::symbolize_run(run);
  progress.step("storing the capture");
  profile::Store::Together together(store);  // the run, its metrics and its trace at once
  const int64_t id = store.add_run(capture->bytes(), run, stored_path, options, give_back.release);
  capture.reset();
  // The executable is the first module the runtime wrote (dl_iterate_phdr's first).
  if (!run.modules.empty()) store.set_build(id, profile::read_program_build(run.modules[0].path));
  if (!labels.empty()) store.add_labels(id, labels);
  progress.step("analysing and storing the metrics");
  store_metrics(store, id, run);
  const std::string trace = capture_path + ".trace";
  if (std::filesystem::exists(trace, error)) {
    progress.step("storing the trace");
    store.add_trace(id, trace);
  }
  together.commit();
  return id;
}

int import_command(const std::vector<std::string>& args) {
  Arguments a(args, "import");
  std::string store_path = default_store();
  std::vector<std::string> captures;
  Labels labels;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.label("--label", &labels)) continue;
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    captures.push_back(a.next());
  }
  if (captures.empty()) throw UsageError("import: no capture file given");
  int status = 0;
  for (const std::string& capture : captures) {
    try {
      const int64_t id = import_capture(capture, store_path, "", labels);
      std::cout << "run " << id << ": " << capture << "\n";
    } catch (const profile::DuplicateCaptureError& e) {
      // The others are still imported: a directory's captures imported again add the new.
      std::cerr << "quartz: import: " << capture << " is already run " << e.existing_run << " of "
                << profile::Store::display_name(store_path) << " (see 'quartz report "
                << e.existing_run << "'); not stored again\n";
      status = 1;
    }
  }
  return status;
}

}  // namespace quartz::cli
