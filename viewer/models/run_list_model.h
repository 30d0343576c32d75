// The runs of an experiment store, for the run picker (the store's summary columns).
#pragma once

#include <vector>

#include "profile/store.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class RunListModel : public ColumnTableModel {
 public:
  enum ColumnId {
    kId,
    kStarted,
    kCommand,
    kProcessors,
    kElapsed,
    kSamples,
    kFinal,
    kHost,
    kLabels,
    kColumnCount
  };

  explicit RunListModel(std::vector<profile::RunSummary> runs, QObject* parent = nullptr);

 private:
  std::vector<profile::RunSummary> runs_;
};

}  // namespace quartz::viewer
