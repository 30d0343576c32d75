// What every chart of the viewer shares: a Qt Charts view without animation (so a
// screenshot shows the final bars), the viewer's palette, time axes in a readable unit,
// and a context menu to export the chart as PNG or SVG.
#pragma once

#include <QChartView>
#include <QColor>
#include <QString>
#include <vector>

class QBarSet;

namespace quartz::viewer {

namespace palette {
inline const QColor kSelf{0x1f, 0x5f, 0xa8};    // a record's own time
inline const QColor kBehalf{0x9c, 0xc3, 0xea};  // time on its behalf
inline const QColor kBusy{0x2e, 0x8b, 0x57};
inline const QColor kSpinning{0xe6, 0x9f, 0x00};
inline const QColor kBlocked{0xc0, 0x39, 0x2b};
inline const QColor kReady{0x7f, 0x6b, 0xb0};
inline const QColor kQueue{0x8c, 0x56, 0x4b};
}  // namespace palette

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
  static void append_seconds(QBarSet* set, const std::vector<double>& values_s, const TimeUnit& unit);

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
};

}  // namespace quartz::viewer
