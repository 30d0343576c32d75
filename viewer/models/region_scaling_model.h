// Where a scaling series loses its time (analysis::Scaling::regions, as `quartz scale`
// lists them): procedures (own time), synchronization objects and threads, by the
// processor capacity each took beyond the base's at the most processors, largest first,
// with the efficiency of each at every processor count.
#pragma once

#include <memory>

#include "viewer/loading/series_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class RegionScalingModel : public ColumnTableModel {
 public:
  // Then one efficiency column per processor count, then the location.
  enum ColumnId { kKind, kName, kLost, kNonScalability, kFirstEfficiency };

  // KeyRole: the row (the index in Scaling::regions).
  explicit RegionScalingModel(std::shared_ptr<const SeriesData> series, QObject* parent = nullptr);

  int location_column() const { return columnCount() - 1; }
  int row_of(const QString& name) const;  // -1 if absent

 private:
  std::shared_ptr<const SeriesData> series_;
};

}  // namespace quartz::viewer
