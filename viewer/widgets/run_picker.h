// Choosing a run of an experiment store: its runs, newest selected; Enter opens one.
#pragma once

#include <QDialog>
#include <cstdint>
#include <optional>
#include <vector>

#include "profile/store.h"

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

 private:
  RunListModel* model_;
  QTableView* table_;
};

}  // namespace quartz::viewer
