#include "viewer/widgets/thread_view.h"

#include "viewer/models/roles.h"
#include "viewer/widgets/ranked_table.h"

namespace quartz::viewer {

ThreadView::ThreadView(QWidget* parent)
    : RankedTab(ThreadTableModel::kName, ThreadTableModel::kNormalized, ThreadTableModel::kShare,
                parent) {
  set_body(table());
  connect(table(), &RankedTable::current_changed, this, &ThreadView::selection_changed);
  connect(table(), &RankedTable::row_activated, this, [this](const QModelIndex& index) {
    if (!run_ || !index.isValid()) return;
    // The thread's work is charged under its routine: the program's procedure it started
    // in (std::thread's trampolines are folded away), else its start routine (0: the main
    // thread, the root).
    const uint32_t thread = index.data(KeyRole).toUInt();
    for (const analysis::ThreadRow& row : run_->view.threads) {
      if (row.index != thread) continue;
      for (const profile::ThreadInfo& t : run_->run.threads) {
        if (t.index != thread) continue;
        emit show_in_hierarchy(
            thread != 0 && row.routine_address ? row.routine_address : t.start_routine, false);
      }
    }
  });
  set_run(nullptr);
}

void ThreadView::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  show_model(std::make_unique<ThreadTableModel>(run_));
  table()->select_first();
}

std::optional<Selection> ThreadView::selection() const {
  const int row = current_row();
  if (!run_ || row < 0) return std::nullopt;
  return thread_selection(*run_, run_->view.threads[size_t(row)]);
}

}  // namespace quartz::viewer
