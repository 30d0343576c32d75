// The threads: normalized time and thread-seconds in each state (busy, spinning, blocked,
// ready), CPU time and calls.
#pragma once

#include <memory>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class ThreadTableModel : public ColumnTableModel {
 public:
  enum ColumnId {
    kIndex,
    kName,
    kParent,
    kNormalized,
    kShare,
    kBusy,
    kSpinning,
    kBlocked,
    kReady,
    kCpu,
    kCalls,
    kColumnCount
  };

  explicit ThreadTableModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);

 private:
  std::shared_ptr<const RunData> run_;
};

}  // namespace quartz::viewer
