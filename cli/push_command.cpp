// `quartz push`: runs copied from one store to another (a machine's file to a team's server,
// or back), each whole: its capture, metrics, trace, predictions, labels and build, and the
// links and series among the runs copied. A run already there is found by its capture's
// bytes and named, so that pushing twice stores once.
#include <iostream>
#include <map>
#include <optional>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "profile/store.h"

namespace quartz::cli {
namespace {

// Copies run `id` of `from` into `to`; returns its id there, and whether it was already.
std::pair<int64_t, bool> copy_run(const profile::Store& from, profile::Store& to, int64_t id,
                                  const std::map<int64_t, int64_t>& copied) {
  const std::vector<unsigned char> capture = from.capture(id);
  const profile::Run run = from.load(id);
  const profile::RunSummary summary = *from.summary(id);
  profile::Store::Together together(to);
  int64_t to_id = 0;
  try {
    to_id = to.add_run(capture, run, summary.capture_path, summary.options);
  } catch (const profile::DuplicateCaptureError& e) {
    return {e.existing_run, true};
  }
  store_metrics(to, to_id, run);
  if (!summary.build.build_id.empty() || !summary.build.compiler.empty()) {
    to.set_build(to_id, summary.build);
  }
  if (!summary.labels.empty()) to.add_labels(to_id, summary.labels);
  if (from.has_trace(id)) to.add_trace(to_id, *from.open_trace(id));
  for (const profile::StoredPrediction& p : from.predictions(id)) {
    to.add_prediction(to_id, p.question, p.json, p.made_realtime_ns);
  }
  // Links and series among the runs copied (by their first run: copied before).
  if (const auto parent = from.parent_run(id); parent && copied.count(*parent)) {
    to.link_run(to_id, copied.at(*parent));
  }
  if (const auto series = from.series_of(id)) {
    if (*series == id) {
      to.add_to_series(to_id, to_id);
    } else if (copied.count(*series)) {
      to.add_to_series(to_id, copied.at(*series));
    }
  }
  together.commit();
  return {to_id, false};
}

}  // namespace

int push_command(const std::vector<std::string>& args) {
  Arguments a(args, "push");
  std::string store_path = default_store(), to_store, from_store;
  std::vector<int64_t> runs;
  while (!a.done()) {
    if (a.value("--store", &store_path) || a.value("--to", &to_store) ||
        a.value("--from", &from_store)) {
      continue;
    }
    const std::string run = a.peek();
    if (run.empty() || run.find_first_not_of("0123456789") != std::string::npos) a.unknown();
    runs.push_back(std::stoll(a.next()));
  }
  if (to_store.empty() == from_store.empty()) {
    throw UsageError("push: give --to STORE or --from STORE (one of them)");
  }
  const std::string source = from_store.empty() ? store_path : from_store;
  const std::string target = to_store.empty() ? store_path : to_store;
  if (!profile::Store::exists(source)) {
    throw UsageError("push: no store at " + profile::Store::display_name(source));
  }
  const profile::Store from(source, profile::StoreAccess::read_only);
  profile::Store to(target);
  if (runs.empty()) {
    for (const profile::RunSummary& r : from.list()) runs.push_back(r.id);
  }
  std::map<int64_t, int64_t> copied;  // id in `from` -> id in `to`
  int status = 0;
  for (const int64_t id : runs) {
    if (!from.summary(id)) {
      std::cerr << "quartz: push: " << from.name() << ": no run " << id << "\n";
      status = 1;
      continue;
    }
    const auto [to_id, already] = copy_run(from, to, id, copied);
    copied[id] = to_id;
    std::cout << "run " << id << " -> " << (already ? "already " : "") << "run " << to_id << " of "
              << to.name() << "\n";
  }
  return status;
}

}  // namespace quartz::cli
