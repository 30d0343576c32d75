#include "viewer/widgets/procedure_view.h"

#include <QSplitter>

#include "viewer/models/roles.h"
#include "viewer/widgets/call_graph_panel.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

ProcedureView::ProcedureView(QWidget* parent)
    : RankedTab(ProcedureTableModel::kName, ProcedureTableModel::kNormalized,
                ProcedureTableModel::kShare, parent),
      callers_(new CallGraphPanel(CallGraphModel::kCallers)),
      callees_(new CallGraphPanel(CallGraphModel::kCallees)),
      vertical_(new QSplitter(Qt::Vertical, this)),
      horizontal_(new QSplitter(Qt::Horizontal)) {
  horizontal_->addWidget(callers_);
  horizontal_->addWidget(callees_);
  vertical_->addWidget(table());
  vertical_->addWidget(horizontal_);
  vertical_->setStretchFactor(0, 3);
  vertical_->setStretchFactor(1, 2);
  vertical_->setChildrenCollapsible(false);
  set_body(vertical_);

  connect(table(), &RankedTable::current_changed, this, &ProcedureView::on_current);
  connect(table(), &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (index.isValid()) emit show_in_hierarchy(index.data(KeyRole).toULongLong(), false);
  });
  connect(callers_, &CallGraphPanel::activated, this, &ProcedureView::on_call_graph);
  connect(callees_, &CallGraphPanel::activated, this, &ProcedureView::on_call_graph);
  set_run(nullptr);
}

void ProcedureView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  show_model(std::make_unique<ProcedureTableModel>(run_));
  callers_->set_run(run_);
  callees_->set_run(run_);
  table()->select_first();
}

void ProcedureView::on_current(const QModelIndex& source_index) {
  if (source_index.isValid()) {
    const uint64_t address = source_index.data(KeyRole).toULongLong();
    const QString name = source_index.siblingAtColumn(ProcedureTableModel::kName).data().toString();
    callers_->show_for(address, false, name);
    callees_->show_for(address, false, name);
  }
  emit selection_changed();
}

void ProcedureView::on_call_graph(uint64_t address, uint32_t kind) {
  if (kind != capture::kProcedure) {
    emit open_lock(address);
  } else if (address == 0) {
    emit show_in_hierarchy(0, false);  // "<program>": the root of the hierarchy
  } else {
    select_procedure(address);
  }
}

std::optional<Selection> ProcedureView::selection() const {
  const int row = current_row();
  if (!run_ || row < 0) return std::nullopt;
  return procedure_selection(*run_, run_->view.procedures[size_t(row)]);
}

bool ProcedureView::select_procedure(uint64_t address) {
  return select_key(QVariant::fromValue<qulonglong>(address));
}

void ProcedureView::save_state(QSettings& settings) const {
  RankedTab::save_state(settings);
  settings.setValue(QStringLiteral("splitter"), vertical_->saveState());
  settings.setValue(QStringLiteral("call_graph_splitter"), horizontal_->saveState());
}

void ProcedureView::restore_state(const QSettings& settings) {
  RankedTab::restore_state(settings);
  vertical_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  horizontal_->restoreState(settings.value(QStringLiteral("call_graph_splitter")).toByteArray());
}

}  // namespace quartz::viewer
