#include "viewer/widgets/procedure_view.h"

#include <QSplitter>
#include <QVBoxLayout>

#include "viewer/models/roles.h"
#include "viewer/widgets/call_graph_panel.h"
#include "viewer/widgets/filter_bar.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

ProcedureView::ProcedureView(QWidget* parent)
    : ProfileTab(parent),
      filter_(new FilterBar(this)),
      table_(new RankedTable(ProcedureTableModel::kName, ProcedureTableModel::kNormalized,
                             ProcedureTableModel::kShare)),
      callers_(new CallGraphPanel(CallGraphModel::kCallers)),
      callees_(new CallGraphPanel(CallGraphModel::kCallees)),
      vertical_(new QSplitter(Qt::Vertical, this)),
      horizontal_(new QSplitter(Qt::Horizontal)) {
  horizontal_->addWidget(callers_);
  horizontal_->addWidget(callees_);
  vertical_->addWidget(table_);
  vertical_->addWidget(horizontal_);
  vertical_->setStretchFactor(0, 3);
  vertical_->setStretchFactor(1, 2);
  vertical_->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(filter_);
  layout->addWidget(vertical_, 1);

  connect(filter_, &FilterBar::search_changed, table_->proxy(), &ProfileFilterProxy::set_search);
  connect(filter_, &FilterBar::minimum_changed, this, [this](double fraction) {
    table_->proxy()->set_minimum(run_ ? fraction * run_->view.elapsed_s : 0);
  });
  connect(filter_, &FilterBar::done, this, [this] { table_->setFocus(Qt::OtherFocusReason); });
  connect(table_, &RankedTable::filters_cleared, filter_, &FilterBar::clear);
  connect(table_, &RankedTable::current_changed, this, &ProcedureView::on_current);
  connect(table_, &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (index.isValid()) emit show_in_hierarchy(index.data(KeyRole).toULongLong(), false);
  });
  connect(callers_, &CallGraphPanel::activated, this, &ProcedureView::on_call_graph);
  connect(callees_, &CallGraphPanel::activated, this, &ProcedureView::on_call_graph);
  set_run(nullptr);
}

void ProcedureView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  auto model = std::make_unique<ProcedureTableModel>(run_);
  table_->set_source(model.get());
  model_ = std::move(model);
  callers_->set_run(run_);
  callees_->set_run(run_);
  table_->select_first();
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
  const QModelIndex current = table_->currentIndex();
  if (!run_ || !current.isValid()) return std::nullopt;
  const int row = table_->proxy()->mapToSource(current).row();
  return procedure_selection(*run_, run_->view.procedures[size_t(row)]);
}

QVariant ProcedureView::current_key() const {
  return table_->current_key();
}

bool ProcedureView::select_key(const QVariant& key) {
  return table_->select_key(key);
}

bool ProcedureView::select_procedure(uint64_t address) {
  return table_->select_key(QVariant::fromValue<qulonglong>(address));
}

const QAbstractItemModel* ProcedureView::export_model() const {
  return table_->proxy();
}

void ProcedureView::focus_search() {
  filter_->focus_search();
}

void ProcedureView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("header"), table_->header_state());
  settings.setValue(QStringLiteral("splitter"), vertical_->saveState());
  settings.setValue(QStringLiteral("call_graph_splitter"), horizontal_->saveState());
}

void ProcedureView::restore_state(const QSettings& settings) {
  table_->set_header_state(settings.value(QStringLiteral("header")).toByteArray());
  vertical_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
  horizontal_->restoreState(settings.value(QStringLiteral("call_graph_splitter")).toByteArray());
}

QWidget* ProcedureView::main_widget() const {
  return table_;
}

}  // namespace quartz::viewer
