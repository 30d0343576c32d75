// Synchronization objects ranked like procedures; below, the selected object's queue-length
// distribution and the procedures it is taken in.
// Enter on an object shows its heaviest calling context in the hierarchy; Enter on a
// procedure it is taken in opens that procedure.
#pragma once

#include "viewer/models/lock_table_model.h"
#include "viewer/widgets/ranked_tab.h"

class QSplitter;

namespace quartz::viewer {

class CallGraphPanel;
class QueueChart;

class LockView : public RankedTab {
  Q_OBJECT

 public:
  explicit LockView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  bool select_lock(uint64_t address);
  CallGraphPanel* taken_in() const { return taken_in_; }
  QueueChart* queue_chart() const { return queue_; }

 private:
  CallGraphPanel* taken_in_;
  QueueChart* queue_;
  QSplitter* splitter_;
  QSplitter* bottom_;
};

}  // namespace quartz::viewer
