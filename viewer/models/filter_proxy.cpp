#include "viewer/models/filter_proxy.h"

#include "viewer/models/roles.h"

namespace quartz::viewer {

ProfileFilterProxy::ProfileFilterProxy(int name_column, int value_column, QObject* parent)
    : QSortFilterProxyModel(parent), name_column_(name_column), value_column_(value_column) {
  setSortRole(NumberRole);
  setSortCaseSensitivity(Qt::CaseInsensitive);
  // A row is shown when it or a descendant is accepted: the path to a match stays visible.
  setRecursiveFilteringEnabled(true);
}

void ProfileFilterProxy::set_search(const QString& text) {
  if (text == search_) return;
  search_ = text;
  invalidateRowsFilter();
}

void ProfileFilterProxy::set_minimum(double value) {
  if (value == minimum_) return;
  minimum_ = value;
  invalidateRowsFilter();
}

bool ProfileFilterProxy::hasChildren(const QModelIndex& parent) const {
  if (search_.isEmpty() && minimum_ <= 0)
    return sourceModel() && sourceModel()->hasChildren(mapToSource(parent));
  return QSortFilterProxyModel::hasChildren(parent);
}

bool ProfileFilterProxy::name_matches(const QModelIndex& source_index) const {
  return source_index.data(NumberRole).toString().contains(search_, Qt::CaseInsensitive);
}

bool ProfileFilterProxy::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
  const QAbstractItemModel* model = sourceModel();
  if (minimum_ > 0) {
    const QVariant value = model->index(source_row, value_column_, source_parent).data(NumberRole);
    if (value.isValid() && value.toDouble() < minimum_) return false;
  }
  if (search_.isEmpty()) return true;
  // The row itself, or an ancestor: descendants of a match are shown with it.
  for (QModelIndex at = model->index(source_row, name_column_, source_parent); at.isValid();
       at = at.parent()) {
    if (name_matches(at.siblingAtColumn(name_column_))) return true;
  }
  return false;
}

}  // namespace quartz::viewer
