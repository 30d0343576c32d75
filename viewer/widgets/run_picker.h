// Choosing a run of an experiment store: its runs, newest selected, narrowed by what is
// typed in the filter (a host, a label: a team's store holds many); Enter opens one.
#pragma once

#include <QDialog>
#include <cstdint>
#include <optional>
#include <vector>

#include "profile/store.h"

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace quartz::viewer {

class RunListModel;

class RunPicker : public QDialog {
  Q_OBJECT

 public:
  RunPicker(const QString& store, std::vector<profile::RunSummary> runs, QWidget* parent = nullptr);
  ~RunPicker() override;

  std::optional<int64_t> chosen() const;  // the selected run's number
  QTableView* table() const { return table_; }
  QLineEdit* filter() const { return filter_; }

 private:
  RunListModel* model_;
  QSortFilterProxyModel* shown_;  // the runs whose host or labels hold the filter's words
  QLineEdit* filter_;
  QTableView* table_;
};

}  // namespace quartz::viewer
