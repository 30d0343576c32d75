#include "viewer/charts/histogram_chart.h"

#include <QBarSet>
#include <QChart>
#include <QStackedBarSeries>
#include <QToolTip>
#include <algorithm>

#include "viewer/models/format.h"

namespace quartz::viewer {

HistogramChart::HistogramChart(QWidget* parent) : ChartView(parent) {}

void HistogramChart::show_histogram(const Histogram& histogram) {
  shown_ = histogram;
  clear_chart(histogram.title);
  const double largest = histogram.total_s.empty() ? 0
                                                   : *std::max_element(histogram.total_s.begin(),
                                                                       histogram.total_s.end());
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;

  auto* series = new QStackedBarSeries;
  const bool split = !histogram.self_s.empty();
  auto* lower = new QBarSet(split ? tr("self") : tr("normalized time"));
  lower->setColor(palette::kSelf);
  lower->setBorderColor(palette::kSelf);
  if (split) {
    append_seconds(lower, histogram.self_s, unit);
    // The stack's height is the analysis' total; its lower part the self time.
    std::vector<double> behalf(histogram.total_s.size());
    for (size_t i = 0; i < behalf.size(); ++i) {
      behalf[i] = std::max(
          0.0, histogram.total_s[i] - (i < histogram.self_s.size() ? histogram.self_s[i] : 0));
    }
    auto* upper = new QBarSet(tr("on its behalf"));
    upper->setColor(palette::kBehalf);
    upper->setBorderColor(palette::kBehalf);
    append_seconds(upper, behalf, unit);
    series->append(lower);
    series->append(upper);
  } else {
    append_seconds(lower, histogram.total_s, unit);
    series->append(lower);
  }
  series->setBarWidth(0.8);
  QStringList categories;
  for (size_t i = 0; i < histogram.total_s.size(); ++i) categories << QString::number(i);
  add_bars(series, categories, tr("processors busy"), tr("normalized time (%1)").arg(unit.name),
           largest * unit.per_second);
  chart()->legend()->setVisible(split);

  connect(series, &QStackedBarSeries::hovered, this, [this](bool on, int bin, QBarSet*) {
    if (!on || bin < 0 || size_t(bin) >= shown_.total_s.size()) return QToolTip::hideText();
    QString text =
        tr("%1 processors busy: %2").arg(bin).arg(format_seconds(shown_.total_s[size_t(bin)]));
    if (!shown_.self_s.empty()) {
      const double self = shown_.self_s[size_t(bin)];
      text += tr("\nself %1, on its behalf %2")
                  .arg(format_seconds(self), format_seconds(shown_.total_s[size_t(bin)] - self));
    }
    QToolTip::showText(QCursor::pos(), text, this);
  });
}

std::vector<std::vector<double>> HistogramChart::bar_parts_s() const {
  std::vector<std::vector<double>> parts;
  const auto series = chart()->series();
  if (series.isEmpty()) return parts;
  for (QBarSet* set : static_cast<QStackedBarSeries*>(series.first())->barSets()) {
    std::vector<double> values;
    for (int i = 0; i < set->count(); ++i) values.push_back(set->at(i) / per_second_);
    parts.push_back(std::move(values));
  }
  return parts;
}

}  // namespace quartz::viewer
