#include "viewer/loading/run_data.h"

#include <filesystem>

#include "analysis/prediction_json.h"
#include "profile/open_run.h"
#include "profile/store.h"

namespace quartz::viewer {

std::string one_line(const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

namespace {

// Whether the run has a trace, by the rule that finds it for predictions and exports.
bool has_trace(const profile::OpenedRun& opened, const std::string& store_path) {
  try {
    profile::trace_opener(opened, store_path);
    return true;
  } catch (const std::exception&) {  // OpenRunError (none), or a store that cannot be read
    return false;
  }
}

std::string analysing(const profile::Run& run) {
  return "analysing " + std::to_string(run.contexts.size()) + " calling contexts";
}

}  // namespace

std::vector<WhatIf> read_what_ifs(const std::vector<profile::StoredPrediction>& stored) {
  std::vector<WhatIf> out;
  out.reserve(stored.size());
  for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
    WhatIf w{*it, std::nullopt, {}};
    try {
      w.predictions = analysis::predictions_from_json(it->json);
    } catch (const std::exception& e) {  // PredictionError, or anything else it lets through
      w.error = one_line(e.what());
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::shared_ptr<const RunData> load_run(const std::string& which, const std::string& store_path,
                                        const analysis::ViewOptions& options,
                                        const LoadProgress& progress) {
  const bool run_number =
      !which.empty() && which.find_first_not_of("0123456789") == std::string::npos;
  std::error_code error;
  if (!which.empty() && which != "latest" && !run_number &&
      !std::filesystem::exists(which, error)) {
    throw LoadError(which + ": no such file");
  }
  auto data = std::make_shared<RunData>();
  if (progress) {
    progress("reading " +
             (run_number || which.empty() ? profile::Store::display_name(store_path) : which));
  }
  try {
    static_cast<profile::OpenedRun&>(*data) = profile::open_run(which, store_path);
    data->source = data->id ? store_path : which;
  } catch (const std::exception& e) {
    throw LoadError(one_line(e.what()));
  }
  if (progress) progress(analysing(data->run));
  // Without the call graph: the views sum a procedure's part of it as they show it.
  analysis::ViewOptions viewer_options = options;
  viewer_options.children = false;
  data->view = analysis::analyze_taking_contexts(data->run, viewer_options);
  data->has_trace = has_trace(*data, store_path);
  if (data->id) {
    if (progress) progress("listing its predictions");
    // The profile is open: predictions that cannot be listed are the What-ifs view's
    // problem, not a reason to refuse the run.
    try {
      const profile::Store store(store_path, profile::StoreAccess::read_only);
      data->what_ifs = read_what_ifs(store.predictions(*data->id));
    } catch (const std::exception& e) {
      data->what_ifs_error = one_line(e.what());
    }
  }
  return data;
}

std::shared_ptr<const RunData> reanalyzed(const RunData& run, const analysis::ViewOptions& options,
                                          const LoadProgress& progress) {
  // The view took the run's contexts: they are read again from where they came.
  return run.id ? load_run(std::to_string(*run.id), run.source, options, progress)
                : load_run(run.source, "", options, progress);
}

}  // namespace quartz::viewer
