// What every chart of the viewer shares: a Qt Charts view without animation (so a
// screenshot shows the final bars), the viewer's palette, time axes in a readable unit,
// and a context menu to export the chart as PNG or SVG.
#pragma once

#include <QChartView>
#include <QString>
#include <QStringList>
#include <vector>

#include "viewer/palette.h"

class QAbstractBarSeries;
class QBarSet;

namespace quartz::viewer {

// Seconds shown in the unit that suits the largest value: s, ms or µs.
struct TimeUnit {
  double per_second = 1;  // shown value = seconds * per_second
  QString name;           // "s", "ms", "µs"
};
TimeUnit time_unit_for(double largest_s);

class ChartView : public QChartView {
  Q_OBJECT

 public:
  explicit ChartView(QWidget* parent = nullptr);
  QSize sizeHint() const override { return {460, 260}; }

  // Replaces the chart by an empty one in the viewer's style, ready for new data.
  void clear_chart(const QString& title);
  // Values in seconds as a bar set in `unit`.
  static void append_seconds(QBarSet* set, const std::vector<double>& values_s,
                             const TimeUnit& unit);
  // Adds `series` to the chart with its axes: the categories (under `category_title`) at
  // the bottom for vertical bars, up the left for horizontal ones; the values (under
  // `value_title`) from 0 to a little past `largest`, already in the axis' unit.
  void add_bars(QAbstractBarSeries* series, const QStringList& categories,
                const QString& category_title, const QString& value_title, double largest);

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
};

}  // namespace quartz::viewer
