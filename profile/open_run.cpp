#include "profile/open_run.h"

#include <filesystem>

#include "profile/capture.h"
#include "profile/store.h"
#include "profile/symbolize_run.h"

namespace quartz::profile {

bool is_capture_file(const std::string& path) {
  std::error_code error;
  return std::filesystem::is_regular_file(path, error) && looks_like_capture(path);
}

OpenedRun open_run(const std::string& which, const std::string& store_path) {
  OpenedRun opened;
  if (is_capture_file(which)) {
    opened.run = read_capture(which);
    symbolize_run(opened.run);
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
  if (!std::filesystem::exists(store_path, error)) {
    throw OpenRunError("no store at " + store_path + " (run 'quartz run' first, or give --store)");
  }
  Store store(store_path);
  int64_t id = 0;
  if (numbered) {
    try {
      id = std::stoll(which);
    } catch (const std::out_of_range&) {
      throw OpenRunError(store_path + ": no run " + which);
    }
  } else {
    const auto latest = store.latest();
    if (!latest) throw OpenRunError(store_path + " holds no runs");
    id = *latest;
  }
  opened.run = store.load(id);
  opened.label = "run " + std::to_string(id) + " (" + store_path + ")";
  opened.id = id;
  return opened;
}

}  // namespace quartz::profile
