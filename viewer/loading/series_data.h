// The `quartz scale` series a run of a store belongs to, analysed as `quartz scale --series
// RUN` analyses it: every run of the series (profile::Store::series_runs), grouped by the
// processors each ran on (analysis::points_by_processors), then analysis::scale.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/scaling.h"
#include "viewer/loading/run_data.h"

namespace quartz::viewer {

struct SeriesData {
  std::vector<int64_t> runs;  // by number
  std::string program;
  // The processors this machine lets a program use, as `quartz scale` counts them, for
  // what the series cannot tell (analysis::scaling_notes).
  uint32_t available = 0;
  analysis::Scaling scaling;
};

// Empty when `run` is no store's, or in no series. Throws LoadError.
std::optional<SeriesData> load_series(const RunData& run);

}  // namespace quartz::viewer
