// A scaling series' points (analysis::Scaling, as `quartz scale` lists them): for each
// processor count, its repeats, the median elapsed time and their spread, the speedup
// against the base (the fewest processors) beside the ideal one, and the efficiency.
#pragma once

#include <memory>

#include "viewer/loading/series_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class ScalePointModel : public ColumnTableModel {
 public:
  enum ColumnId {
    kProcessors,
    kRuns,
    kElapsed,
    kFastest,
    kSlowest,
    kSpeedup,
    kIdeal,
    kEfficiency,
    kColumnCount
  };

  // KeyRole: the processor count.
  explicit ScalePointModel(std::shared_ptr<const SeriesData> series, QObject* parent = nullptr);

 private:
  std::shared_ptr<const SeriesData> series_;
};

}  // namespace quartz::viewer
