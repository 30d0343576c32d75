#include "viewer/widgets/ranked_table.h"

#include <QHeaderView>
#include <algorithm>

#include "viewer/models/roles.h"
#include "viewer/widgets/share_bar_delegate.h"

namespace quartz::viewer {

RankedTable::RankedTable(int name_column, int value_column, int share_column, QWidget* parent)
    : QTableView(parent),
      name_column_(name_column),
      value_column_(value_column),
      proxy_(new ProfileFilterProxy(name_column, value_column, this)) {
  setModel(proxy_);
  setSortingEnabled(true);
  setSelectionBehavior(SelectRows);
  setSelectionMode(SingleSelection);
  setAlternatingRowColors(true);
  setWordWrap(false);
  setTextElideMode(Qt::ElideMiddle);
  verticalHeader()->hide();
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  horizontalHeader()->setHighlightSections(false);
  horizontalHeader()->setSectionsMovable(true);
  horizontalHeader()->setStretchLastSection(true);
  if (share_column >= 0) setItemDelegateForColumn(share_column, new ShareBarDelegate(this));
  connect(this, &QAbstractItemView::activated, this,
          [this](const QModelIndex& index) { emit row_activated(proxy_->mapToSource(index)); });
  connect(
      selectionModel(), &QItemSelectionModel::currentRowChanged, this,
      [this](const QModelIndex& current) { emit current_changed(proxy_->mapToSource(current)); });
}

void RankedTable::set_source(QAbstractItemModel* model) {
  if (proxy_->columnCount() > 0) saved_header_ = horizontalHeader()->saveState();
  proxy_->setSourceModel(model);
  if (proxy_->columnCount() == 0) return;
  QHeaderView* header = horizontalHeader();
  if (saved_header_.isEmpty() || !header->restoreState(saved_header_)) {
    header->setSortIndicator(value_column_, Qt::DescendingOrder);
    fit_columns();
  }
  sortByColumn(header->sortIndicatorSection(), header->sortIndicatorOrder());
}

QByteArray RankedTable::header_state() const {
  return proxy_->columnCount() > 0 ? horizontalHeader()->saveState() : saved_header_;
}

QVariant RankedTable::current_key() const {
  const QModelIndex current = currentIndex();
  return current.isValid() ? current.data(KeyRole) : QVariant();
}

bool RankedTable::select_key(const QVariant& key) {
  QAbstractItemModel* model = source();
  if (!model || !key.isValid()) return false;
  for (int row = 0; row < model->rowCount(); ++row) {
    const QModelIndex source_index = model->index(row, name_column_);
    if (source_index.data(KeyRole) != key) continue;
    QModelIndex index = proxy_->mapFromSource(source_index);
    if (!index.isValid()) {  // filtered out: show everything again
      proxy_->set_search({});
      proxy_->set_minimum(0);
      emit filters_cleared();
      index = proxy_->mapFromSource(source_index);
    }
    setCurrentIndex(index);
    scrollTo(index);
    return true;
  }
  return false;
}

void RankedTable::select_first() {
  if (proxy_->rowCount() > 0) setCurrentIndex(proxy_->index(0, name_column_));
}

void RankedTable::fit_columns() {
  resizeColumnsToContents();
  const int name_width = std::clamp(columnWidth(name_column_), 140, 360);
  setColumnWidth(name_column_, name_width);
  for (int column = 0; column < proxy_->columnCount(); ++column) {
    if (column != name_column_) setColumnWidth(column, std::max(columnWidth(column), 48));
  }
}

}  // namespace quartz::viewer
