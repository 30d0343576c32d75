// A stored prediction's answers as horizontal bars beside the replay of the recorded
// configuration and the critical path: each bar runs to the lowest figure of the answer's
// range under the plausible scheduler models, green when the most likely figure is faster
// than the recorded replay, red when slower, blue when no different as the change is shown
// (to 0.1%), and on to the highest in amber (the range), top-down in the order of the
// answers.
#pragma once

#include <QStringList>
#include <vector>

#include "analysis/prediction.h"
#include "viewer/charts/chart_view.h"
#include "viewer/models/what_if_answer_model.h"

namespace quartz::viewer {

class WhatIfChart : public ChartView {
  Q_OBJECT

 public:
  static constexpr size_t kMaxAnswers = 24;  // more would not be readable

  explicit WhatIfChart(QWidget* parent = nullptr);
  QSize sizeHint() const override { return {460, 320}; }

  void show_answers(const analysis::Predictions& p, const std::vector<Answer>& answers);
  void clear_answers();  // an empty chart

  // The shown bars, top-down ("as recorded", "critical path", then the answers), in seconds
  // (to the top of each range), where each range begins, and their labels.
  std::vector<double> bars_s() const;
  std::vector<double> range_starts_s() const;
  QStringList labels() const { return labels_; }

 private:
  std::vector<double> sums_s(bool with_range) const;
  double per_second_ = 1;
  QStringList labels_;
};

}  // namespace quartz::viewer
