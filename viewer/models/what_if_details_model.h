// One stored prediction's figures as a tree: the model's check (recorded elapsed time
// against the replay of the recorded configuration), the critical path (its length and
// share of the recorded elapsed time, its processor and off-processor time, and the
// threads, procedures and locks it runs through), and the trace it was predicted from.
// Value holds the prediction's number (NumberRole) and Share a list entry's share of the
// critical path (or the path's share of the recorded elapsed time), as `quartz predict`
// prints them.
#pragma once

#include <QAbstractItemModel>
#include <QString>
#include <vector>

#include "analysis/prediction.h"

namespace quartz::viewer {

class WhatIfDetailsModel : public QAbstractItemModel {
 public:
  enum ColumnId { kName, kValue, kShare, kColumnCount };
  // What a row stands for (KindRole).
  enum RowKind { kGroup, kFigure, kThread, kProcedure, kLock };

  explicit WhatIfDetailsModel(QObject* parent = nullptr);

  void set_predictions(const analysis::Predictions* p);

  // The row of a figure or list entry by its name under a group ("Critical path",
  // "Threads", …), or an invalid index. For tests and the view's selection.
  QModelIndex find(const QString& group, const QString& name) const;
  // The critical path's procedure, lock or thread of that name (threads are listed as
  // "INDEX NAME": either matches), or an invalid index.
  QModelIndex find_on_path(const QString& name) const;
  // The groups shown expanded at first (all but the trace's).
  std::vector<QModelIndex> open_groups() const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Node {
    int parent = -1;  // -1: a top-level row
    int row = 0;      // among its parent's children
    std::vector<int> children;
    RowKind kind = kFigure;
    QString name, tooltip;
    QVariant value, share;           // NumberRole
    QString value_text, share_text;  // DisplayRole
    bool open = true;
  };

  int add(int parent, RowKind kind, QString name, QVariant value, QString value_text,
          QString tooltip = {});
  void build(const analysis::Predictions& p);

  std::vector<Node> nodes_;
  std::vector<int> top_;
};

}  // namespace quartz::viewer
