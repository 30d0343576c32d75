#include "profile/open_run.h"

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

// What "latest@branch=main@host=ci-3" asks of a run: each key=value after an '@' is a label
// it must have, but host=NAME the machine it was made on (the last one given).
struct Selector {
  std::vector<std::pair<std::string, std::string>> labels;
  std::string host;
  bool any() const { return labels.empty() && host.empty(); }
};

// The selector `which` writes; nullopt when it is not "latest", "" or "latest@...".
std::optional<Selector> latest_with(const std::string& which) {
  if (!which.empty() && which != "latest" && !which.starts_with("latest@")) return std::nullopt;
  Selector selector;
  for (size_t at = which.find('@'); at != std::string::npos;) {
    const size_t next = which.find('@', at + 1);
    const std::string condition = which.substr(at + 1, next - at - 1);
    const size_t eq = condition.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    std::string key = condition.substr(0, eq), value = condition.substr(eq + 1);
    if (key == "host") {
      selector.host = std::move(value);
    } else {
      selector.labels.emplace_back(std::move(key), std::move(value));
    }
    at = next;
  }
  return selector;
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
  const std::optional<Selector> selector = latest_with(which);
  if (std::filesystem::is_regular_file(which, error) || (!numbered && !selector)) {
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
  } else if (selector->any()) {
    const auto latest = store.latest();
    if (!latest) throw OpenRunError(store.name() + " holds no runs");
    id = *latest;
  } else {
    for (const RunSummary& run : store.list()) {
      if (run.matches(selector->labels, selector->host)) id = run.id;  // by id: the latest last
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
