#include "viewer/widgets/share_bar_delegate.h"

#include <QPainter>
#include <algorithm>

#include "viewer/charts/chart_view.h"
#include "viewer/models/roles.h"

namespace quartz::viewer {

void ShareBarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
  const QVariant share = index.data(NumberRole);
  if (share.isValid() && !(option.state & QStyle::State_Selected)) {
    const double fraction = std::clamp(share.toDouble(), 0.0, 1.0);
    QRect bar = option.rect.adjusted(2, 3, -2, -3);
    bar.setWidth(static_cast<int>(bar.width() * fraction));
    painter->fillRect(bar, palette::kBehalf.lighter(112));
  }
  QStyledItemDelegate::paint(painter, option, index);
}

}  // namespace quartz::viewer
