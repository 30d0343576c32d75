// A synchronization object's queue-length distribution: the time it was in use with k
// threads waiting for it.
#pragma once

#include <QString>
#include <vector>

#include "viewer/charts/chart_view.h"

namespace quartz::viewer {

struct QueueLengths {
  QString title;
  std::vector<double> queue_s;  // time in use with k threads waiting
};

class QueueChart : public ChartView {
  Q_OBJECT

 public:
  explicit QueueChart(QWidget* parent = nullptr);
  void show_queue(const QueueLengths& queue);
  std::vector<double> bars_s() const;  // the shown bars, in seconds

 private:
  double per_second_ = 1;
};

}  // namespace quartz::viewer
