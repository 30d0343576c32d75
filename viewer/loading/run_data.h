// One run as the viewer holds it: the run read through profile/ and the ProfileView the
// analysis library derived from it. Models share it (shared_ptr) and never change it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/prediction.h"
#include "analysis/profile_view.h"
#include "profile/run.h"
#include "profile/store.h"

namespace quartz::viewer {

// A run that could not be opened; what() is one line naming the file or run.
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One `quartz predict` result stored with the run, and what predictions_from_json() read.
struct WhatIf {
  profile::StoredPrediction stored;
  std::optional<analysis::Predictions> predictions;  // empty when the stored JSON is unreadable
  std::string error;                                 // then: why, in one line
};

struct RunData {
  std::string label;                // "run 3 (quartz.db)" or the capture's path
  std::string source;               // the capture file or the store it came from
  std::optional<int64_t> store_id;  // the run's number in its store
  profile::Run run;                 // for what is not a metric: host, topology, start routines
  analysis::ProfileView view;       // every number the viewer shows
  // Runs of a store only: whether a trace is stored with it (so `quartz predict` can be
  // asked), its stored predictions, newest first, and why they could not be listed.
  bool has_trace = false;
  std::vector<WhatIf> what_ifs;
  std::string what_ifs_error;
};

// `which`: a capture file, a run number, "latest" or "" (the store's latest run), as
// `quartz report` takes it; `store_path` is the store for numbers and "latest".
// Throws LoadError.
std::shared_ptr<const RunData> load_run(const std::string& which, const std::string& store_path);

// The stored predictions of a run (oldest first, as the store lists them) read with
// predictions_from_json(), newest first. One that cannot be read keeps its error.
std::vector<WhatIf> read_what_ifs(const std::vector<profile::StoredPrediction>& stored);

// Turns any exception message into one line (captures and stores may quote file contents).
std::string one_line(const std::string& message);

}  // namespace quartz::viewer
