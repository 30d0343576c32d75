// A view whose main widget is a RankedTable below the filter bar (procedures,
// locks, threads): the table's model, made from the run, its rows' keys, the
// table as shown for export, and its header's layout.
#pragma once

#include <memory>

#include "viewer/widgets/profile_tab.h"

namespace quartz::viewer {

class RankedTable;

class RankedTab : public ProfileTab {
  Q_OBJECT

 public:
  QVariant current_key() const override;  // the selected row's KeyRole
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  RankedTable* table() const { return table_; }

 protected:
  // The table's columns, as RankedTable takes them.
  RankedTab(int name_column, int value_column, int share_column, QWidget* parent);
  ~RankedTab() override;

  // Shows `model` in the table, replacing the one shown (the table keeps its layout).
  void show_model(std::unique_ptr<QAbstractItemModel> model);
  // The selected row of the model, or -1.
  int current_row() const;

 private:
  void filter_search(const QString& text) override;
  void filter_minimum(double seconds) override;

  std::unique_ptr<QAbstractItemModel> model_;
  RankedTable* table_;
};

}  // namespace quartz::viewer
