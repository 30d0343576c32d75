// The threads, ranked by normalized time, with their time in each state. Enter on a thread
// shows the calling context of its start routine in the hierarchy.
#pragma once

#include <memory>

#include "viewer/models/thread_table_model.h"
#include "viewer/widgets/profile_tab.h"

namespace quartz::viewer {

class FilterBar;
class RankedTable;

class ThreadView : public ProfileTab {
  Q_OBJECT

 public:
  explicit ThreadView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
  QVariant current_key() const override;  // the thread's index
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;
  void focus_search() override;
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  RankedTable* table() const { return table_; }

 private:
  const analysis::ThreadRow* current_thread() const;

  std::shared_ptr<const RunData> run_;
  std::unique_ptr<ThreadTableModel> model_;
  FilterBar* filter_;
  RankedTable* table_;
};

}  // namespace quartz::viewer
