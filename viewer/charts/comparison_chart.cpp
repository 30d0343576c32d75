#include "viewer/charts/comparison_chart.h"

#include <QBarSet>
#include <QChart>
#include <QHorizontalBarSeries>
#include <QLegend>
#include <algorithm>

#include "viewer/models/format.h"

namespace quartz::viewer {

namespace {

constexpr int kChangeLabelLength = 26;

}  // namespace

ComparisonChart::ComparisonChart(QWidget* parent) : ChartView(parent) {}

void ComparisonChart::show_changes(const analysis::Comparison& c) {
  // Procedures then locks, each already ranked by the size of their change.
  std::vector<const analysis::Change*> changes;
  for (const analysis::Change& p : c.procedures) changes.push_back(&p);
  for (const analysis::Change& l : c.locks) changes.push_back(&l);
  const size_t shown = std::min(changes.size(), kMaxBars);
  clear_chart(shown < changes.size()
                  ? tr("Normalized time, the first %1 of %2 changes").arg(shown).arg(changes.size())
                  : tr("Normalized time, A and B"));
  names_.clear();
  if (shown == 0) return;
  double largest = 0;
  for (size_t i = 0; i < shown; ++i)
    largest = std::max({largest, changes[i]->a_s, changes[i]->b_s});
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;
  auto* a = new QBarSet(tr("A"));
  auto* b = new QBarSet(tr("B (this run)"));
  a->setColor(palette::kRecorded);
  a->setBorderColor(palette::kRecorded);
  b->setColor(palette::kSelf);
  b->setBorderColor(palette::kSelf);
  QStringList categories;
  // Categories run bottom-up: the largest change is added last, to be on top.
  for (size_t k = shown; k-- > 0;) {
    QString label = elided(QString::fromStdString(changes[k]->name), kChangeLabelLength);
    while (categories.contains(label)) label += QChar(0x200b);  // names must differ
    categories << label;
    a->append(changes[k]->a_s * unit.per_second);
    b->append(changes[k]->b_s * unit.per_second);
  }
  for (size_t k = 0; k < shown; ++k) names_ << QString::fromStdString(changes[k]->name);
  // In a horizontal series the last set is drawn on top within each category.
  auto* series = new QHorizontalBarSeries;
  series->append(b);
  series->append(a);
  series->setBarWidth(0.8);
  add_bars(series, categories, QString(), tr("normalized time (%1)").arg(unit.name),
           largest * unit.per_second);
  chart()->legend()->setVisible(true);
  chart()->legend()->setReverseMarkers(true);
}

std::vector<double> ComparisonChart::set_values(int set) const {
  std::vector<double> out;
  const auto series = chart()->series();
  if (series.isEmpty()) return out;
  const QBarSet* values = static_cast<QHorizontalBarSeries*>(series.first())->barSets()[set];
  for (int k = int(values->count()) - 1; k >= 0; --k) out.push_back(values->at(k) / per_second_);
  return out;
}

std::vector<double> ComparisonChart::a_s() const {
  return set_values(1);
}

std::vector<double> ComparisonChart::b_s() const {
  return set_values(0);
}

}  // namespace quartz::viewer
