// The parallelism histogram (Quartz, Figure 2): a record's normalized time against the
// number of processors busy while it ran, 0..P; the record's own time and the time on its
// behalf stacked in two shades. For the whole program it is the run's parallelism.
#pragma once

#include <QString>
#include <vector>

#include "viewer/charts/chart_view.h"

namespace quartz::viewer {

struct Histogram {
  QString title;
  std::vector<double> total_s;  // normalized time by processors busy, 0..P
  std::vector<double> self_s;   // its self part; empty when the record has no other part
};

class HistogramChart : public ChartView {
  Q_OBJECT

 public:
  explicit HistogramChart(QWidget* parent = nullptr);

  void show_histogram(const Histogram& histogram);
  // The shown bars' parts in seconds, lower part first: {self, on behalf}, or {total}.
  std::vector<std::vector<double>> bar_parts_s() const;

 private:
  Histogram shown_;
  double per_second_ = 1;
};

}  // namespace quartz::viewer
