// The threads, ranked by normalized time, with their time in each state. Enter on a thread
// shows the calling context of its start routine in the hierarchy.
#pragma once

#include "viewer/models/thread_table_model.h"
#include "viewer/widgets/ranked_tab.h"

namespace quartz::viewer {

class ThreadView : public RankedTab {
  Q_OBJECT

 public:
  explicit ThreadView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
};

}  // namespace quartz::viewer
