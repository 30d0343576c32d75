// The distribution of runnable threads in each state: for every k, the thread-time spent
// in a state while k threads were runnable. Low k while blocked means idle processors;
// k above P while ready means oversubscription.
#pragma once

#include "viewer/charts/chart_view.h"
#include "viewer/charts/state_chart.h"

namespace quartz::viewer {

class RunnableChart : public ChartView {
  Q_OBJECT

 public:
  explicit RunnableChart(QWidget* parent = nullptr);
  // `processors`: P, so that at least 0..P runnable threads are shown.
  void show_runnable(const StateBreakdown& breakdown, uint32_t processors);
  // The shown bars in seconds: [state in state_styles() order][k].
  std::vector<std::vector<double>> bars_s() const;

 private:
  double per_second_ = 1;
};

}  // namespace quartz::viewer
