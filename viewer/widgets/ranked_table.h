// A table ranked by a number (normalized time, by default the heaviest first) over a
// ProfileFilterProxy: sortable columns, one selected row, a share bar in the "% elapsed"
// column. Rows are addressed by the source model's rows and keys (KeyRole).
#pragma once

#include <QTableView>

#include "viewer/models/filter_proxy.h"

namespace quartz::viewer {

class RankedTable : public QTableView {
  Q_OBJECT

 public:
  // `share_column` (or -1) gets the bar; `value_column` is the default sort and the
  // column the threshold filter compares.
  RankedTable(int name_column, int value_column, int share_column, QWidget* parent = nullptr);

  // Shows a model with the remembered layout (header_state()), or else ranked by the
  // value column, heaviest first, with columns fitted to their contents.
  void set_source(QAbstractItemModel* model);
  ProfileFilterProxy* proxy() const { return proxy_; }
  QAbstractItemModel* source() const { return proxy_->sourceModel(); }
  // The selected row's KeyRole, or an invalid QVariant.
  QVariant current_key() const;
  // Selects the row whose KeyRole is `key` (clearing the filters if they hide it).
  bool select_key(const QVariant& key);
  void select_first();
  // Column widths that fit the contents, the name column wider but bounded.
  void fit_columns();
  // Column widths, order and sorting, to remember between sessions.
  QByteArray header_state() const;
  void set_header_state(const QByteArray& state) { saved_header_ = state; }

 signals:
  void current_changed(const QModelIndex& source_index);  // invalid when nothing is selected
  void row_activated(const QModelIndex& source_index);    // Enter or double-click
  void filters_cleared();                                 // select_key() showed hidden rows again

 private:
  int name_column_, value_column_;
  ProfileFilterProxy* proxy_;
  QByteArray saved_header_;  // applied when a model gives the header its columns
};

}  // namespace quartz::viewer
