#include "viewer/charts/chart_view.h"

#include <QAbstractBarSeries>
#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QContextMenuEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QValueAxis>

#include "viewer/charts/chart_export.h"

namespace quartz::viewer {

TimeUnit time_unit_for(double largest_s) {
  if (largest_s >= 1) return {1, QStringLiteral("s")};
  if (largest_s >= 1e-3) return {1e3, QStringLiteral("ms")};
  return {1e6, QStringLiteral("µs")};
}

ChartView::ChartView(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(160);
  clear_chart(QString());
}

void ChartView::clear_chart(const QString& title) {
  // A new chart each time: removing series and axes from a live chart can leave the old
  // axes' labels painted under the new ones.
  auto* c = new QChart;
  c->setAnimationOptions(QChart::NoAnimation);
  c->setTheme(QChart::ChartThemeLight);
  c->setBackgroundRoundness(0);
  c->setMargins(QMargins(4, 4, 4, 4));
  c->legend()->setAlignment(Qt::AlignBottom);
  QFont bold = font();
  bold.setBold(true);
  c->setTitleFont(bold);
  c->setTitle(title);
  QChart* old = chart();
  setChart(c);
  delete old;
}

void ChartView::append_seconds(QBarSet* set, const std::vector<double>& values_s,
                               const TimeUnit& unit) {
  for (double v : values_s) set->append(v * unit.per_second);
}

void ChartView::add_bars(QAbstractBarSeries* series, const QStringList& categories,
                         const QString& category_title, const QString& value_title,
                         double largest) {
  const bool horizontal = series->type() == QAbstractSeries::SeriesTypeHorizontalBar ||
                          series->type() == QAbstractSeries::SeriesTypeHorizontalStackedBar ||
                          series->type() == QAbstractSeries::SeriesTypeHorizontalPercentBar;
  chart()->addSeries(series);
  auto* category_axis = new QBarCategoryAxis;
  category_axis->append(categories);
  category_axis->setTitleText(category_title);
  auto* value_axis = new QValueAxis;
  value_axis->setTitleText(value_title);
  value_axis->setLabelFormat(QStringLiteral("%.4g"));
  value_axis->setMin(0);
  value_axis->setMax(largest > 0 ? largest * (horizontal ? 1.05 : 1.08) : 1);
  value_axis->applyNiceNumbers();
  chart()->addAxis(category_axis, horizontal ? Qt::AlignLeft : Qt::AlignBottom);
  chart()->addAxis(value_axis, horizontal ? Qt::AlignBottom : Qt::AlignLeft);
  series->attachAxis(value_axis);
  series->attachAxis(category_axis);
}

void ChartView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  QAction* save = menu.addAction(tr("Export chart as PNG or SVG…"));
  if (menu.exec(event->globalPos()) != save) return;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export chart"), QStringLiteral("chart.png"),
                                   tr("PNG image (*.png);;SVG image (*.svg)"));
  if (path.isEmpty()) return;
  QString error;
  if (!export_chart(*this, path, &error)) QMessageBox::warning(this, tr("Export chart"), error);
}

}  // namespace quartz::viewer
