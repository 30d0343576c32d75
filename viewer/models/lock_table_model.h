// Synchronization objects (mutexes, rwlocks, spin locks, conditions, barriers, semaphores,
// joins), ranked like procedures by the normalized time of the work done holding them.
#pragma once

#include <memory>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class LockTableModel : public ColumnTableModel {
 public:
  enum ColumnId {
    kName,
    kNormalized,
    kShare,
    kWait,
    kHold,
    kAcquisitions,
    kContended,
    kMeanWait,
    kMeanQueue,
    kColumnCount
  };

  explicit LockTableModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);

  int row_of(uint64_t address) const;  // -1 if absent; KeyRole holds the address

 private:
  std::shared_ptr<const RunData> run_;
};

}  // namespace quartz::viewer
