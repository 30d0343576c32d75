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

void ChartView::add_horizontal_bars(QAbstractBarSeries* series, const QStringList& categories,
                                    const QString& axis_title, double largest) {
  series->setBarWidth(0.7);
  chart()->addSeries(series);
  auto* y = new QBarCategoryAxis;
  y->append(categories);
  auto* x = new QValueAxis;
  x->setTitleText(axis_title);
  x->setLabelFormat(QStringLiteral("%.4g"));
  x->setMin(0);
  x->setMax(largest > 0 ? largest * 1.05 : 1);
  x->applyNiceNumbers();
  chart()->addAxis(y, Qt::AlignLeft);
  chart()->addAxis(x, Qt::AlignBottom);
  series->attachAxis(x);
  series->attachAxis(y);
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
