#include "viewer/charts/runnable_chart.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <algorithm>

namespace quartz::viewer {

RunnableChart::RunnableChart(QWidget* parent) : ChartView(parent) {}

void RunnableChart::show_runnable(const StateBreakdown& breakdown, uint32_t processors) {
  clear_chart(breakdown.title);
  const auto& runnable = breakdown.totals.runnable_s;  // [state][k]
  // Bins past the last one with time in it are left out; the last bin of the record is
  // "k or more" runnable threads.
  size_t bins = std::size_t{processors} + 1, record_bins = 0;
  double largest = 0;
  for (const auto& hist : runnable) {
    record_bins = std::max(record_bins, hist.size());
    for (size_t k = 0; k < hist.size(); ++k) {
      if (hist[k] > 0) bins = std::max(bins, k + 1);
      largest = std::max(largest, hist[k]);
    }
  }
  bins = std::min(bins, std::max<size_t>(record_bins, 1));
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;

  auto* series = new QBarSeries;
  for (const StateStyle& s : state_styles()) {
    auto* set = new QBarSet(QString::fromLatin1(s.name));
    set->setColor(s.color);
    set->setBorderColor(s.color);
    const std::vector<double> empty;
    const auto& hist = s.state < runnable.size() ? runnable[s.state] : empty;
    for (size_t k = 0; k < bins; ++k)
      set->append(k < hist.size() ? hist[k] * unit.per_second : 0.0);
    series->append(set);
  }
  QStringList categories;
  for (size_t k = 0; k < bins; ++k) {
    categories << (k + 1 == record_bins ? QString::number(k) + "+" : QString::number(k));
  }
  add_bars(series, categories, tr("runnable threads"), tr("time (%1)").arg(unit.name),
           largest * unit.per_second);
  chart()->legend()->setVisible(true);
}

std::vector<std::vector<double>> RunnableChart::bars_s() const {
  std::vector<std::vector<double>> bars;
  const auto series = chart()->series();
  if (series.isEmpty()) return bars;
  for (QBarSet* set : static_cast<QBarSeries*>(series.first())->barSets()) {
    std::vector<double> values;
    for (int k = 0; k < set->count(); ++k) values.push_back(set->at(k) / per_second_);
    bars.push_back(std::move(values));
  }
  return bars;
}

}  // namespace quartz::viewer
