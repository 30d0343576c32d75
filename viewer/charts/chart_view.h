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
  // Adds horizontal bars: `categories` up the left, the values along the bottom from 0 to
  // a little past `largest` (already in the axis' unit), under `axis_title`.
  void add_horizontal_bars(QAbstractBarSeries* series, const QStringList& categories,
                           const QString& axis_title, double largest);

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
};

}  // namespace quartz::viewer
