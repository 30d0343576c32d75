// The predictions stored with a run (`quartz predict`), newest first: when each was made,
// the question asked, and the model's error on the recorded configuration, or why the
// stored prediction could not be read.
#pragma once

#include <memory>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class WhatIfListModel : public ColumnTableModel {
 public:
  enum ColumnId { kMade, kQuestion, kCheck, kColumnCount };

  // KeyRole: the index in run->what_ifs.
  explicit WhatIfListModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);

 private:
  std::shared_ptr<const RunData> run_;
};

}  // namespace quartz::viewer
