#include "viewer/widgets/lock_view.h"

#include <QSplitter>

#include "viewer/charts/queue_chart.h"
#include "viewer/models/roles.h"
#include "viewer/widgets/call_graph_panel.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

LockView::LockView(QWidget* parent)
    : RankedTab(LockTableModel::kName, LockTableModel::kNormalized, LockTableModel::kShare, parent),
      taken_in_(new CallGraphPanel(CallGraphModel::kCallers)),
      queue_(new QueueChart),
      splitter_(new QSplitter(Qt::Vertical, this)),
      bottom_(new QSplitter(Qt::Horizontal)) {
  bottom_->addWidget(queue_);
  bottom_->addWidget(taken_in_);
  bottom_->setChildrenCollapsible(false);
  bottom_->setSizes({1000, 1000});  // halves, whatever the width
  splitter_->addWidget(table());
  splitter_->addWidget(bottom_);
  splitter_->setStretchFactor(0, 1);
  splitter_->setStretchFactor(1, 1);
  splitter_->setChildrenCollapsible(false);
  set_body(splitter_);

  connect(table(), &RankedTable::current_changed, this, [this](const QModelIndex& index) {
    if (index.isValid()) {
      const QString name = index.siblingAtColumn(LockTableModel::kName).data().toString();
      taken_in_->show_for(index.data(KeyRole).toULongLong(), true, name);
      queue_->show_queue(
          {tr("Queue length of %1").arg(name), run_->view.locks[size_t(index.row())].queue_s});
    }
    queue_->setVisible(index.isValid());
    emit selection_changed();
  });
  connect(table(), &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (index.isValid()) emit show_in_hierarchy(index.data(KeyRole).toULongLong(), true);
  });
  connect(taken_in_, &CallGraphPanel::activated, this,
          [this](uint64_t address, uint32_t) { emit open_procedure(address); });
  set_run(nullptr);
}

void LockView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  show_model(std::make_unique<LockTableModel>(run_));
  taken_in_->set_run(run_);
  table()->select_first();
}

std::optional<Selection> LockView::selection() const {
  const int row = current_row();
  if (!run_ || row < 0) return std::nullopt;
  return lock_selection(*run_, run_->view.locks[size_t(row)]);
}

bool LockView::select_lock(uint64_t address) {
  return select_key(QVariant::fromValue<qulonglong>(address));
}

void LockView::save_state(QSettings& settings) const {
  RankedTab::save_state(settings);
  settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
  settings.setValue(QStringLiteral("bottom_splitter"), bottom_->saveState());
}

void LockView::restore_state(const QSettings& settings) {
  RankedTab::restore_state(settings);
  splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  bottom_->restoreState(settings.value(QStringLiteral("bottom_splitter")).toByteArray());
}

}  // namespace quartz::viewer
