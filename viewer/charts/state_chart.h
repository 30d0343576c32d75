// Where a record's thread-time went, by state (busy, spinning, blocked, ready), with the
// mean number of runnable threads while in each state (Quartz, Table 1).
#pragma once

#include <QString>

#include "analysis/profile_view.h"
#include "viewer/charts/chart_view.h"

namespace quartz::viewer {

struct StateBreakdown {
  QString title;
  analysis::Totals totals;  // state_s, mean_runnable and runnable_s are shown
};

// The states in the order the charts show them, with their names and colours.
struct StateStyle {
  uint32_t state;
  const char* name;
  QColor color;
};
const std::vector<StateStyle>& state_styles();

class StateChart : public ChartView {
  Q_OBJECT

 public:
  explicit StateChart(QWidget* parent = nullptr);
  void show_states(const StateBreakdown& breakdown);
  // The shown bar of each state, in seconds, in state_styles() order.
  std::vector<double> bars_s() const;

 private:
  double per_second_ = 1;
};

}  // namespace quartz::viewer
