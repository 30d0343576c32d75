// Draws a "% of elapsed" cell as a bar behind its text, so the rows that cost elapsed time
// stand out while walking down the hierarchy.
#pragma once

#include <QStyledItemDelegate>

namespace quartz::viewer {

class ShareBarDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
};

}  // namespace quartz::viewer
