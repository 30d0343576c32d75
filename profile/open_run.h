// Finding the run a user names: a capture file, or a run of a store by number, "latest", or
// "latest@KEY=VALUE..." (the latest run with those labels; host=NAME: made on NAME).
// Shared by `quartz report` and `quartz-view`, so both accept the same names.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "profile/run.h"
#include "profile/trace_reader.h"

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

// `which`: a capture file, a run number, "latest" or "" (the store's latest run), or
// "latest@branch=main@host=ci-3".
// Throws OpenRunError for a name that is neither, a missing store, or an empty one;
// CaptureError or StoreError for unreadable files.
OpenedRun open_run(const std::string& which, const std::string& store_path);
// open_run in two steps: which run it is (its run left empty), then the run itself (what
// `quartz predict` reads meanwhile: the run's trace, by trace_opener).
OpenedRun find_run(const std::string& which, const std::string& store_path);
void load_run(OpenedRun& found, const std::string& store_path);

// What opens a run's trace, each time it is called (a prediction reads it more than once):
// the trace stored with the run, or CAPTURE.trace next to a capture file. Throws
// OpenRunError, saying how to record one, when the run has none.
using TraceOpener = std::function<std::unique_ptr<TraceSource>()>;
TraceOpener trace_opener(const OpenedRun& opened, const std::string& store_path);

// The store a command uses when none is named: $QUARTZ_STORE, else ./quartz.db.
std::string default_store_path();

// True when `path` is a file holding a capture (by its magic number).
bool is_capture_file(const std::string& path);

}  // namespace quartz::profile
