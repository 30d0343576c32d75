#include "viewer/charts/state_chart.h"

#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <algorithm>

namespace quartz::viewer {

const std::vector<StateStyle>& state_styles() {
  static const std::vector<StateStyle> kStyles = {
      {capture::kBusy, "busy", palette::kBusy},
      {capture::kSpinning, "spinning", palette::kSpinning},
      {capture::kBlocked, "blocked", palette::kBlocked},
      {capture::kReady, "ready", palette::kReady}};
  return kStyles;
}

StateChart::StateChart(QWidget* parent) : ChartView(parent) {}

void StateChart::show_states(const StateBreakdown& breakdown) {
  clear_chart(breakdown.title);
  const auto& styles = state_styles();
  double largest = 0;
  for (const StateStyle& s : styles) largest = std::max(largest, breakdown.totals.state_s[s.state]);
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;

  // One set per state, non-zero only in its own row, so each bar has its state's colour.
  // Categories run bottom-up: the last state is drawn first, so busy ends on top.
  auto* series = new QHorizontalStackedBarSeries;
  QStringList categories;
  const size_t n = styles.size();
  for (size_t row = 0; row < n; ++row) {
    const StateStyle& s = styles[n - 1 - row];
    categories << tr("%1 (%2 runnable)")
                      .arg(QString::fromLatin1(s.name))
                      .arg(breakdown.totals.mean_runnable[s.state], 0, 'f', 2);
    auto* set = new QBarSet(QString::fromLatin1(s.name));
    set->setColor(s.color);
    set->setBorderColor(s.color);
    for (size_t other = 0; other < n; ++other) {
      set->append(other == row ? breakdown.totals.state_s[s.state] * unit.per_second : 0.0);
    }
    series->append(set);
  }
  series->setBarWidth(0.7);
  add_bars(series, categories, QString(), tr("thread-time (%1)").arg(unit.name),
           largest * unit.per_second);
  chart()->legend()->setVisible(false);
}

std::vector<double> StateChart::bars_s() const {
  std::vector<double> bars;
  const auto series = chart()->series();
  if (series.isEmpty()) return bars;
  const auto sets = static_cast<QHorizontalStackedBarSeries*>(series.first())->barSets();
  for (int row = int(sets.size()) - 1; row >= 0; --row)
    bars.push_back(sets[row]->at(row) / per_second_);
  return bars;
}

}  // namespace quartz::viewer
