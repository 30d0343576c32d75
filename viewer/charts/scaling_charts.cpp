#include "viewer/charts/scaling_charts.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

#include "viewer/models/format.h"

namespace quartz::viewer {

namespace {

constexpr int kNameLength = 28;

// Processors across, from 0 to the most measured, one tick each while readable.
QValueAxis* processor_axis(const analysis::Scaling& s) {
  auto* axis = new QValueAxis;
  const uint32_t most = s.processors.empty() ? 1 : s.processors.back();
  axis->setRange(0, most);
  axis->setTickCount(most <= 16 ? int(most) + 1 : 9);
  axis->setLabelFormat(QStringLiteral("%d"));
  axis->setTitleText(QObject::tr("processors"));
  return axis;
}

QValueAxis* value_axis(const QString& title, double largest) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setLabelFormat(QStringLiteral("%.3g"));
  axis->setRange(0, largest > 0 ? largest * 1.08 : 1);
  axis->applyNiceNumbers();
  return axis;
}

std::vector<std::vector<QPointF>> points_of(const QChart* chart, double scale) {
  std::vector<std::vector<QPointF>> out;
  for (QAbstractSeries* series : chart->series()) {
    std::vector<QPointF> line;
    for (const QPointF& p : static_cast<QLineSeries*>(series)->points())
      line.emplace_back(p.x(), p.y() / scale);
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

SpeedupChart::SpeedupChart(QWidget* parent) : ChartView(parent) {}

void SpeedupChart::show_series(const analysis::Scaling& s) {
  clear_chart(tr("Speedup"));
  auto* measured = new QLineSeries;
  measured->setName(tr("measured (median elapsed)"));
  auto* ideal = new QLineSeries;
  ideal->setName(tr("ideal"));
  double largest = 0;
  for (size_t i = 0; i < s.processors.size(); ++i) {
    measured->append(s.processors[i], s.speedup[i]);
    ideal->append(s.processors[i], s.ideal_speedup[i]);
    largest = std::max({largest, s.speedup[i], s.ideal_speedup[i]});
  }
  measured->setColor(palette::kSelf);
  measured->setPointsVisible(true);
  QPen pen(palette::kSelf);
  pen.setWidth(3);
  measured->setPen(pen);
  QPen dashed(palette::kRecorded);
  dashed.setStyle(Qt::DashLine);
  dashed.setWidth(2);
  ideal->setPen(dashed);
  chart()->addSeries(measured);
  chart()->addSeries(ideal);
  QValueAxis* x = processor_axis(s);
  QValueAxis* y = value_axis(tr("speedup"), largest);
  chart()->addAxis(x, Qt::AlignBottom);
  chart()->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* series : chart()->series()) {
    series->attachAxis(x);
    series->attachAxis(y);
  }
}

std::vector<std::vector<QPointF>> SpeedupChart::lines() const {
  return points_of(chart(), 1);
}

RegionScalingChart::RegionScalingChart(QWidget* parent) : ChartView(parent) {}

void RegionScalingChart::show_series(const analysis::Scaling& s, bool lost) {
  const size_t shown = std::min(s.regions.size(), kMaxRegions);
  clear_chart(lost ? tr("Capacity lost beyond the base, the %1 regions that lose most").arg(shown)
                   : tr("Normalized time of the %1 regions that lose most").arg(shown));
  names_.clear();
  double largest = 0;
  for (size_t r = 0; r < shown; ++r) {
    for (double v : lost ? s.regions[r].lost_s : s.regions[r].time_s)
      largest = std::max(largest, v);
  }
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;
  const QColor colors[kMaxRegions] = {palette::kSelf,    palette::kSpinning, palette::kBusy,
                                      palette::kBlocked, palette::kReady,    palette::kQueue};
  for (size_t r = 0; r < shown; ++r) {
    const analysis::RegionScaling& region = s.regions[r];
    auto* line = new QLineSeries;
    line->setName(elided(QString::fromStdString(region.name), kNameLength));
    line->setPointsVisible(true);
    const std::vector<double>& values = lost ? region.lost_s : region.time_s;
    for (size_t i = 0; i < s.processors.size(); ++i)
      line->append(s.processors[i], values[i] * unit.per_second);
    chart()->addSeries(line);
    QPen pen(colors[r]);
    pen.setWidth(2);
    line->setPen(pen);
    names_ << QString::fromStdString(region.name);
  }
  QValueAxis* x = processor_axis(s);
  QValueAxis* y = value_axis(
      (lost ? tr("time × processors lost (%1)") : tr("normalized time (%1)")).arg(unit.name),
      largest * unit.per_second);
  chart()->addAxis(x, Qt::AlignBottom);
  chart()->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* series : chart()->series()) {
    series->attachAxis(x);
    series->attachAxis(y);
  }
}

std::vector<std::vector<QPointF>> RegionScalingChart::lines_s() const {
  return points_of(chart(), per_second_);
}

}  // namespace quartz::viewer
