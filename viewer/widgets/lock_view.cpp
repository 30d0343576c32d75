#include "viewer/widgets/lock_view.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "viewer/charts/queue_chart.h"
#include "viewer/models/roles.h"
#include "viewer/widgets/call_graph_panel.h"
#include "viewer/widgets/filter_bar.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

LockView::LockView(QWidget* parent)
    : ProfileTab(parent),
      filter_(new FilterBar(this)),
      table_(new RankedTable(LockTableModel::kName, LockTableModel::kNormalized,
                             LockTableModel::kShare)),
      taken_in_(new CallGraphPanel(CallGraphModel::kCallers)),
      queue_(new QueueChart),
      splitter_(new QSplitter(Qt::Vertical, this)),
      bottom_(new QSplitter(Qt::Horizontal)) {
  bottom_->addWidget(queue_);
  bottom_->addWidget(taken_in_);
  bottom_->setChildrenCollapsible(false);
  bottom_->setSizes({1000, 1000});  // halves, whatever the width
  splitter_->addWidget(table_);
  splitter_->addWidget(bottom_);
  splitter_->setStretchFactor(0, 1);
  splitter_->setStretchFactor(1, 1);
  splitter_->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(filter_);
  layout->addWidget(splitter_, 1);

  connect(filter_, &FilterBar::search_changed, table_->proxy(), &ProfileFilterProxy::set_search);
  connect(filter_, &FilterBar::minimum_changed, this, [this](double fraction) {
    table_->proxy()->set_minimum(run_ ? fraction * run_->view.elapsed_s : 0);
  });
  connect(filter_, &FilterBar::done, this, [this] { table_->setFocus(Qt::OtherFocusReason); });
  connect(table_, &RankedTable::filters_cleared, filter_, &FilterBar::clear);
  connect(table_, &RankedTable::current_changed, this, [this](const QModelIndex& index) {
    if (index.isValid()) {
      const QString name = index.siblingAtColumn(LockTableModel::kName).data().toString();
      taken_in_->show_for(index.data(KeyRole).toULongLong(), true, name);
      queue_->show_queue(
          {tr("Queue length of %1").arg(name), run_->view.locks[size_t(index.row())].queue_s});
    }
    queue_->setVisible(index.isValid());
    emit selection_changed();
  });
  connect(table_, &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (index.isValid()) emit show_in_hierarchy(index.data(KeyRole).toULongLong(), true);
  });
  connect(taken_in_, &CallGraphPanel::activated, this,
          [this](uint64_t address, uint32_t) { emit open_procedure(address); });
  set_run(nullptr);
}

void LockView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  auto model = std::make_unique<LockTableModel>(run_);
  table_->set_source(model.get());
  model_ = std::move(model);
  taken_in_->set_run(run_);
  table_->select_first();
}

std::optional<Selection> LockView::selection() const {
  const QModelIndex current = table_->currentIndex();
  if (!run_ || !current.isValid()) return std::nullopt;
  const int row = table_->proxy()->mapToSource(current).row();
  return lock_selection(*run_, run_->view.locks[size_t(row)]);
}

QVariant LockView::current_key() const {
  return table_->current_key();
}

bool LockView::select_key(const QVariant& key) {
  return table_->select_key(key);
}

bool LockView::select_lock(uint64_t address) {
  return table_->select_key(QVariant::fromValue<qulonglong>(address));
}

const QAbstractItemModel* LockView::export_model() const {
  return table_->proxy();
}

void LockView::focus_search() {
  filter_->focus_search();
}

void LockView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("header"), table_->header_state());
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("bottom_splitter"), bottom_->saveState());
}

void LockView::restore_state(const QSettings& settings) {
  table_->set_header_state(settings.value(QStringLiteral("header")).toByteArray());
  splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  bottom_->restoreState(settings.value(QStringLiteral("bottom_splitter")).toByteArray());
}

QWidget* LockView::main_widget() const {
  return table_;
}

}  // namespace quartz::viewer
