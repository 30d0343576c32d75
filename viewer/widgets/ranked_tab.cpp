#include "viewer/widgets/ranked_tab.h"

#include "viewer/widgets/filter_bar.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

RankedTab::RankedTab(int name_column, int value_column, int share_column, QWidget* parent)
    : ProfileTab(parent, kFiltered),
      table_(new RankedTable(name_column, value_column, share_column)) {
  connect(table_, &RankedTable::filters_cleared, filter_bar(), &FilterBar::clear);
}

RankedTab::~RankedTab() = default;

void RankedTab::show_model(std::unique_ptr<QAbstractItemModel> model) {
  table_->set_source(model.get());
  model_ = std::move(model);  // the old one after the table has let go of it
}

int RankedTab::current_row() const {
  const QModelIndex current = table_->currentIndex();
  return current.isValid() ? table_->proxy()->mapToSource(current).row() : -1;
}

QVariant RankedTab::current_key() const {
  return table_->current_key();
}

bool RankedTab::select_key(const QVariant& key) {
  return table_->select_key(key);
}

const QAbstractItemModel* RankedTab::export_model() const {
  return table_->proxy();
}

QWidget* RankedTab::main_widget() const {
  return table_;
}

void RankedTab::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("header"), table_->header_state());
}

void RankedTab::restore_state(const QSettings& settings) {
  table_->set_header_state(settings.value(QStringLiteral("header")).toByteArray());
}

void RankedTab::filter_search(const QString& text) {
  table_->proxy()->set_search(text);
}

void RankedTab::filter_minimum(double seconds) {
  table_->proxy()->set_minimum(seconds);
}

}  // namespace quartz::viewer
