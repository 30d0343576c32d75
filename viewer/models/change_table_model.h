// Procedures or locks whose normalized time changed beyond noise between two runs
// (analysis::Comparison, as `quartz compare` lists them): A's time, B's, the change, the
// noise bound it exceeds. Slower rows in the "slower" colour, faster in the "faster" one.
#pragma once

#include <vector>

#include "analysis/comparison.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class ChangeTableModel : public ColumnTableModel {
 public:
  enum ColumnId { kName, kA, kB, kChange, kNoise, kLocation, kColumnCount };

  // KeyRole: the row; NumberRole of kChange: (B − A) / A, blank for what A did not have.
  explicit ChangeTableModel(std::vector<analysis::Change> changes, QObject* parent = nullptr);

  const std::vector<analysis::Change>& changes() const { return changes_; }

 private:
  std::vector<analysis::Change> changes_;
};

}  // namespace quartz::viewer
