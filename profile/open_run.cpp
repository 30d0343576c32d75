#include "profile/open_run.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "profile/capture.h"
#include "profile/store.h"
#include "profile/symbolize_run.h"

namespace quartz::profile {

bool is_capture_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && looks_like_capture(path);
}

namespace {

// The conditions of "latest@branch=main@host=ci-3": each key=value after an '@' (none for
// "latest"); nullopt when `which` is not "latest" so written.
std::optional<std::vector<std::pair<std::string, std::string>>> latest_with(
    const std::string& which) {
  if (!which.empty() && which != "latest" && !which.starts_with("latest@")) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> conditions;
  for (size_t at = which.find('@'); at != std::string::npos;) {
    const size_t next = which.find('@', at + 1);
    const std::string condition = which.substr(at + 1, next - at - 1);
    const size_t eq = condition.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    conditions.emplace_back(condition.substr(0, eq), condition.substr(eq + 1));
    at = next;
  }
  return conditions;
}

// Whether `run` has each label of `conditions`, "host" being its host.
bool meets(const RunSummary& run,
           const std::vector<std::pair<std::string, std::string>>& conditions) {
  return std::all_of(conditions.begin(), conditions.end(), [&](const auto& c) {
    return c.first == "host"
               ? run.host == c.second
               : std::find(run.labels.begin(), run.labels.end(), c) != run.labels.end();
  });
}

}  // namespace

OpenedRun find_run(const std::string& which, const std::string& store_path) {
  OpenedRun opened;
  if (is_capture_file(which)) {
    opened.label = which;
    return opened;
  }
  std::error_code error;
  const bool numbered =
      !which.empty() && which.find_first_not_of("0123456789") == std::string::npos;
  const auto conditions = latest_with(which);
  if (std::filesystem::is_regular_file(which, error) || (!numbered && !conditions)) {
    throw OpenRunError("'" + which + "' is neither a run number nor a capture file");
  }
  if (!Store::exists(store_path)) {
    throw OpenRunError("no store at " + Store::display_name(store_path) +
                       " (run 'quartz run' first, or give --store)");
  }
  Store store(store_path, StoreAccess::read_only);
  int64_t id = 0;
  if (numbered) {
    try {
      id = std::stoll(which);
    } catch (const std::out_of_range&) {
      throw OpenRunError(store.name() + ": no run " + which);
    }
  } else if (conditions->empty()) {
    const auto latest = store.latest();
    if (!latest) throw OpenRunError(store.name() + " holds no runs");
    id = *latest;
  } else {
    for (const RunSummary& run : store.list()) {
      if (meets(run, *conditions)) id = run.id;  // by id: the latest last
    }
    if (id == 0) throw OpenRunError(store.name() + " holds no run " + which.substr(6));
  }
  opened.label = "run " + std::to_string(id) + " (" + store.name() + ")";
  opened.id = id;
  return opened;
}

void load_run(OpenedRun& found, const std::string& store_path) {
  if (found.id) {
    found.run = Store(store_path, StoreAccess::read_only).load(*found.id);
  } else {
    found.run = read_capture(found.label);
    symbolize_run(found.run);
  }
}

OpenedRun open_run(const std::string& which, const std::string& store_path) {
  OpenedRun opened = find_run(which, store_path);
  load_run(opened, store_path);
  return opened;
}

TraceOpener trace_opener(const OpenedRun& opened, const std::string& store_path) {
  if (opened.id) {
    const int64_t id = *opened.id;
    if (!Store(store_path, StoreAccess::read_only).has_trace(id)) {
      throw OpenRunError(opened.label + " has no trace: record it with 'quartz run --trace'");
    }
    return [store_path, id] { return Store(store_path, StoreAccess::read_only).open_trace(id); };
  }
  const std::string trace = opened.label + ".trace";  // a capture file's label is its path
  std::error_code error;
  if (!std::filesystem::exists(trace, error)) {
    throw OpenRunError("no trace next to " + opened.label + " (" + trace +
                       "): record it with 'quartz run --trace'");
  }
  return [trace] { return open_trace_file(trace); };
}

std::string default_store_path() {
  if (const char* path = std::getenv("QUARTZ_STORE")) return path;
  return "quartz.db";
}

}  // namespace quartz::profile
