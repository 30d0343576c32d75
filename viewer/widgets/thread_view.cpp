#include "viewer/widgets/thread_view.h"

#include <QVBoxLayout>

#include "viewer/models/roles.h"
#include "viewer/widgets/filter_bar.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

ThreadView::ThreadView(QWidget* parent)
    : ProfileTab(parent),
      filter_(new FilterBar(this)),
      table_(new RankedTable(ThreadTableModel::kName, ThreadTableModel::kNormalized,
                             ThreadTableModel::kShare, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(filter_);
  layout->addWidget(table_, 1);
  connect(filter_, &FilterBar::search_changed, table_->proxy(), &ProfileFilterProxy::set_search);
  connect(filter_, &FilterBar::minimum_changed, this, [this](double fraction) {
    table_->proxy()->set_minimum(run_ ? fraction * run_->view.elapsed_s : 0);
  });
  connect(filter_, &FilterBar::done, this, [this] { table_->setFocus(Qt::OtherFocusReason); });
  connect(table_, &RankedTable::filters_cleared, filter_, &FilterBar::clear);
  connect(table_, &RankedTable::current_changed, this, &ThreadView::selection_changed);
  connect(table_, &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (!run_ || !index.isValid()) return;
    // The thread's work is charged under its start routine (0: the main thread, the root).
    const uint32_t thread = index.data(KeyRole).toUInt();
    for (const profile::ThreadInfo& t : run_->run.threads) {
      if (t.index == thread) emit show_in_hierarchy(t.start_routine, false);
    }
  });
  set_run(nullptr);
}

void ThreadView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  auto model = std::make_unique<ThreadTableModel>(run_);
  table_->set_source(model.get());
  model_ = std::move(model);
  table_->select_first();
}

const analysis::ThreadRow* ThreadView::current_thread() const {
  const QModelIndex current = table_->currentIndex();
  if (!run_ || !current.isValid()) return nullptr;
  return &run_->view.threads[size_t(table_->proxy()->mapToSource(current).row())];
}

std::optional<Selection> ThreadView::selection() const {
  const analysis::ThreadRow* thread = current_thread();
  if (!thread) return std::nullopt;
  return thread_selection(*run_, *thread);
}

QVariant ThreadView::current_key() const {
  return table_->current_key();
}

bool ThreadView::select_key(const QVariant& key) {
  return table_->select_key(key);
}

const QAbstractItemModel* ThreadView::export_model() const {
  return table_->proxy();
}

void ThreadView::focus_search() {
  filter_->focus_search();
}

void ThreadView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("header"), table_->header_state());
}

void ThreadView::restore_state(const QSettings& settings) {
  table_->set_header_state(settings.value(QStringLiteral("header")).toByteArray());
}

QWidget* ThreadView::main_widget() const {
  return table_;
}

}  // namespace quartz::viewer
