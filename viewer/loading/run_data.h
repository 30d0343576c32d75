// One run as the viewer holds it: the run as profile/ opened it (profile::OpenedRun: the
// run, its label and its number in a store, as `quartz report` opens it, so the exports take
// it as they are) and the ProfileView the analysis library derived from it. Models share it
// (shared_ptr) and never change it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/prediction.h"
#include "analysis/profile_view.h"
#include "profile/open_run.h"
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

// From profile::OpenedRun: `run` (for what is not a metric: host, topology, start routines;
// without its calling contexts, which the view took: analysis::analyze_taking_contexts),
// `label` ("run 3 (quartz.db)" or the capture's path) and `id` (the run's number in its
// store, for a run of a store).
struct RunData : profile::OpenedRun {
  std::string source;          // the capture file or the store it came from
  analysis::ProfileView view;  // every number the viewer shows
  // Whether the run has a trace (profile::trace_opener: stored with the run, or
  // CAPTURE.trace next to a capture), so `quartz predict` can be asked and the trace
  // exported.
  bool has_trace = false;
  // Runs of a store only: its stored predictions, newest first, and why they could not be
  // listed.
  std::vector<WhatIf> what_ifs;
  std::string what_ifs_error;
};

// Told the step a load is at ("reading run.qcap", "analysing 8100000 calling contexts"),
// from the thread that loads.
using LoadProgress = std::function<void(const std::string& step)>;

// `which`: a capture file, a run number, "latest" or "" (the store's latest run), as
// `quartz report` takes it; `store_path` is the store for numbers and "latest"; `options`
// as `quartz report` takes them (--all-frames). Throws LoadError.
std::shared_ptr<const RunData> load_run(const std::string& which, const std::string& store_path,
                                        const analysis::ViewOptions& options = {},
                                        const LoadProgress& progress = {});
// The same run read again and analyzed with other options (system frames shown or folded).
// Throws LoadError (the file or store changed or went away).
std::shared_ptr<const RunData> reanalyzed(const RunData& run, const analysis::ViewOptions& options,
                                          const LoadProgress& progress = {});

// The stored predictions of a run (oldest first, as the store lists them) read with
// predictions_from_json(), newest first. One that cannot be read keeps its error.
std::vector<WhatIf> read_what_ifs(const std::vector<profile::StoredPrediction>& stored);

// Turns any exception message into one line (captures and stores may quote file contents).
std::string one_line(const std::string& message);

}  // namespace quartz::viewer
