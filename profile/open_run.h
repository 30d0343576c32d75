// Finding the run a user names: a capture file, or a run of a store by number or "latest".
// Shared by `quartz report` and `quartz-view`, so both accept the same names.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "profile/run.h"

namespace quartz::profile {

class OpenRunError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OpenedRun {
  Run run;                    // symbolized
  std::string label;          // "run 3 (quartz.db)" or the capture's path
  std::optional<int64_t> id;  // the store's run number, when it came from a store
};

// `which`: a capture file, a run number, "latest" or "" (the store's latest run).
// Throws OpenRunError for a name that is neither, a missing store, or an empty one;
// CaptureError or StoreError for unreadable files.
OpenedRun open_run(const std::string& which, const std::string& store_path);

// True when `path` is a file holding a capture (by its magic number).
bool is_capture_file(const std::string& path);

}  // namespace quartz::profile
