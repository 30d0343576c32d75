#include "viewer/charts/queue_chart.h"

#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <algorithm>

namespace quartz::viewer {

QueueChart::QueueChart(QWidget* parent) : ChartView(parent) {}

void QueueChart::show_queue(const QueueLengths& queue) {
  clear_chart(queue.title);
  // Up to the longest queue seen, at least 0..1 waiting (an object no snapshot saw has no
  // queue lengths: zeros).
  size_t bins = 2;
  for (size_t k = 0; k < queue.queue_s.size(); ++k) {
    if (queue.queue_s[k] > 0) bins = std::max(bins, k + 1);
  }
  const double largest =
      queue.queue_s.empty() ? 0 : *std::max_element(queue.queue_s.begin(), queue.queue_s.end());
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;
  auto* set = new QBarSet(tr("time in use"));
  set->setColor(palette::kQueue);
  set->setBorderColor(palette::kQueue);
  QStringList categories;
  for (size_t k = 0; k < bins; ++k) {
    set->append((k < queue.queue_s.size() ? queue.queue_s[k] : 0.0) * unit.per_second);
    categories << QString::number(k);
  }
  auto* series = new QBarSeries;
  series->append(set);
  series->setBarWidth(0.7);
  add_bars(series, categories, tr("threads waiting"), tr("time (%1)").arg(unit.name),
           largest * unit.per_second);
  chart()->legend()->setVisible(false);
}

std::vector<double> QueueChart::bars_s() const {
  std::vector<double> bars;
  const auto series = chart()->series();
  if (series.isEmpty()) return bars;
  QBarSet* set = static_cast<QBarSeries*>(series.first())->barSets().first();
  for (int k = 0; k < set->count(); ++k) bars.push_back(set->at(k) / per_second_);
  return bars;
}

}  // namespace quartz::viewer
