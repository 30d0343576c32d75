#include "profile/open_run.h"

#include <cstdlib>
#include <filesystem>

#include "profile/capture.h"
#include "profile/store.h"
#include "profile/symbolize_run.h"

namespace quartz::profile {

bool is_capture_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && looks_like_capture(path);
}

OpenedRun find_run(const std::string& which, const std::string& store_path) {
  OpenedRun opened;
  if (is_capture_file(which)) {
    opened.label = which;
    return opened;
  }
  std::error_code error;
  const bool numbered =
      !which.empty() && which.find_first_not_of("0123456789") == std::string::npos;
  if (std::filesystem::is_regular_file(which, error) ||
      (!which.empty() && which != "latest" && !numbered)) {
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
  } else {
    const auto latest = store.latest();
    if (!latest) throw OpenRunError(store.name() + " holds no runs");
    id = *latest;
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
