// Two runs compared as `quartz compare A B` compares them (analysis::compare, one run a
// side): A the run chosen to compare with, B the run shown.
#pragma once

#include <memory>

#include "analysis/comparison.h"
#include "viewer/loading/run_data.h"

namespace quartz::viewer {

struct RunComparison {
  std::shared_ptr<const RunData> a, b;
  analysis::Comparison comparison;
};

RunComparison compare_runs(std::shared_ptr<const RunData> a, std::shared_ptr<const RunData> b);

}  // namespace quartz::viewer
