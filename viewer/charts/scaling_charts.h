// Charts of a scaling series (analysis::Scaling), processors across: the speedup against
// the base with the ideal speedup dashed, and the normalized time (or the capacity lost
// beyond the base's) of the regions that lose the most, one line each.
#pragma once

#include <QPointF>
#include <QStringList>
#include <vector>

#include "analysis/scaling.h"
#include "viewer/charts/chart_view.h"

namespace quartz::viewer {

class SpeedupChart : public ChartView {
  Q_OBJECT

 public:
  explicit SpeedupChart(QWidget* parent = nullptr);
  void show_series(const analysis::Scaling& s);

  // The lines shown: the speedup, then the ideal one (processors, speedup).
  std::vector<std::vector<QPointF>> lines() const;
};

class RegionScalingChart : public ChartView {
  Q_OBJECT

 public:
  static constexpr size_t kMaxRegions = 6;  // more lines would not be readable

  explicit RegionScalingChart(QWidget* parent = nullptr);
  // `lost`: the capacity lost beyond the base's rather than the normalized time.
  void show_series(const analysis::Scaling& s, bool lost);

  // The lines shown, in seconds, and their names (the regions').
  std::vector<std::vector<QPointF>> lines_s() const;
  QStringList names() const { return names_; }

 private:
  double per_second_ = 1;
  QStringList names_;
};

}  // namespace quartz::viewer
