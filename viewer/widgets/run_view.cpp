#include "viewer/widgets/run_view.h"

#include <QHeaderView>

namespace quartz::viewer {

RunView::RunView(QWidget* parent) : ProfileTab(parent), table_(new QTableView(this)) {
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  set_body(table_);
  set_run(nullptr);
}

void RunView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  auto model = std::make_unique<RunDetailsModel>(run_);
  table_->setModel(model.get());
  model_ = std::move(model);
  table_->resizeColumnToContents(RunDetailsModel::kProperty);
  table_->setColumnWidth(RunDetailsModel::kProperty,
                         table_->columnWidth(RunDetailsModel::kProperty) + 24);
  table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
}

std::optional<Selection> RunView::selection() const {
  if (!run_) return std::nullopt;
  return program_selection(*run_);
}

void RunView::save_state(QSettings&) const {}

void RunView::restore_state(const QSettings&) {}

QWidget* RunView::main_widget() const {
  return table_;
}

}  // namespace quartz::viewer
