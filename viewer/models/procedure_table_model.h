// The flat procedure table: every procedure with its normalized time (self and on its
// behalf), share of elapsed time, self time, processor time and calls, as `quartz report`
// ranks them.
#pragma once

#include <memory>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class ProcedureTableModel : public ColumnTableModel {
 public:
  enum ColumnId { kName, kNormalized, kShare, kSelf, kProcessor, kCalls, kLocation, kColumnCount };

  explicit ProcedureTableModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);

  // The row of a procedure, or -1. KeyRole holds the address.
  int row_of(uint64_t address) const;

 private:
  std::shared_ptr<const RunData> run_;
};

}  // namespace quartz::viewer
