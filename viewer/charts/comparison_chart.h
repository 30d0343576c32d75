// A comparison's changes beyond noise as bars (analysis::Comparison): for each procedure
// and lock that changed, its normalized time in A (grey) above its time in B (blue), the
// largest changes first.
#pragma once

#include <QStringList>
#include <vector>

#include "analysis/comparison.h"
#include "viewer/charts/chart_view.h"

namespace quartz::viewer {

class ComparisonChart : public ChartView {
  Q_OBJECT

 public:
  static constexpr size_t kMaxBars = 12;  // more would not be readable

  explicit ComparisonChart(QWidget* parent = nullptr);
  QSize sizeHint() const override { return {420, 320}; }

  void show_changes(const analysis::Comparison& c);

  // The bars shown, top-down: names, and A's and B's seconds.
  QStringList names() const { return names_; }
  std::vector<double> a_s() const;
  std::vector<double> b_s() const;

 private:
  std::vector<double> set_values(int set) const;

  double per_second_ = 1;
  QStringList names_;
};

}  // namespace quartz::viewer
