// The run itself: command, machine, processors, sampling period and quality (samples, torn
// rate, dilation removed), one property per row.
#pragma once

#include <memory>
#include <vector>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class RunDetailsModel : public ColumnTableModel {
 public:
  enum ColumnId { kProperty, kValue, kColumnCount };

  explicit RunDetailsModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);

  // The row of a property by its name ("Processors"), or -1.
  int row_of(const QString& property) const;

 private:
  struct Entry {
    QString property;
    QVariant value;  // NumberRole
    QString text;    // DisplayRole
    QString tooltip;
  };
  std::shared_ptr<const RunData> run_;
  std::vector<Entry> entries_;
};

}  // namespace quartz::viewer
