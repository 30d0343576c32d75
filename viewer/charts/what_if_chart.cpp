#include "viewer/charts/what_if_chart.h"

#include <QBarSet>
#include <QChart>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "analysis/text_format.h"
#include "viewer/models/format.h"
#include "viewer/models/what_if_text.h"

namespace quartz::viewer {

namespace {

constexpr int kWhatIfLabelLength = 30;

// Faster (2), slower (3) or, as the change is shown to 0.1%, no different (4).
int colour_of(double predicted_s, double recorded_s) {
  const std::optional<double> change = change_of(predicted_s, recorded_s);
  if (!change || std::fabs(*change) < 0.0005) return 4;
  return *change < 0 ? 2 : 3;
}

}  // namespace

WhatIfChart::WhatIfChart(QWidget* parent) : ChartView(parent) {}

void WhatIfChart::clear_answers() {
  labels_.clear();
  clear_chart(QString());
}

void WhatIfChart::show_answers(const analysis::Predictions& p, const std::vector<Answer>& answers) {
  const size_t shown = std::min(answers.size(), kMaxAnswers);
  clear_chart(
      shown < answers.size()
          ? tr("Predicted elapsed time (the first %1 of %2 answers)").arg(shown).arg(answers.size())
          : tr("Predicted elapsed time"));
  struct Bar {
    QString label, tip;
    double low_s, high_s;
    int set;  // 0 recorded, 1 critical path, 2 faster, 3 slower, 4 unchanged
  };
  auto range = [](const analysis::PredictionRange& r) {
    return QString::fromStdString(analysis::text::seconds_range(r.low_s, r.high_s));
  };
  std::vector<Bar> bars;
  bars.push_back({tr("as recorded"),
                  tr("The recorded configuration replayed: %1 under the plausible models, %2 "
                     "under the most likely (recorded %3)")
                      .arg(range(p.recorded_range), format_seconds(p.recorded_s),
                           format_seconds(p.observed_s)),
                  p.recorded_range.low_s, p.recorded_range.high_s, 0});
  bars.push_back({tr("critical path"),
                  tr("Every thread on a processor of its own: %1")
                      .arg(format_seconds(p.critical_path.length_s)),
                  p.critical_path.length_s, p.critical_path.length_s, 1});
  for (size_t i = 0; i < shown; ++i) {
    const Answer& a = answers[i];
    bars.push_back({a.question,
                    tr("%1\n%2: %3 under the plausible models (%4 wide); %5 under the most "
                       "likely (%6 against the recorded configuration alone)")
                        .arg(a.question, a.answer, range(a.range),
                             format_percent(analysis::relative_width(a.predicted_s, a.range)),
                             format_seconds(a.predicted_s), signed_change(a.predicted_s, p.base_s)),
                    a.range.low_s, a.range.high_s, colour_of(a.predicted_s, p.base_s)});
  }
  double largest = 0;
  for (const Bar& b : bars) largest = std::max(largest, b.high_s);
  const TimeUnit unit = time_unit_for(largest);
  per_second_ = unit.per_second;

  // One set per colour, non-zero only in its own bars, to where the range begins; then one
  // set of every bar's range on top. Categories run bottom-up, so the bars are added last
  // first.
  constexpr int kSets = 6, kRangeSet = 5;
  const QColor colors[kSets] = {palette::kRecorded, palette::kCriticalPath, palette::kFaster,
                                palette::kSlower,   palette::kUnchanged,    palette::kRange};
  const QString names[kSets] = {tr("as recorded"), tr("critical path"), tr("faster"),
                                tr("slower"),      tr("unchanged"),     tr("range")};
  QBarSet* sets[kSets];
  auto* series = new QHorizontalStackedBarSeries;
  for (int s = 0; s < kSets; ++s) {
    sets[s] = new QBarSet(names[s]);
    sets[s]->setColor(colors[s]);
    sets[s]->setBorderColor(colors[s]);
  }
  QStringList categories;
  labels_.clear();
  bool used[kSets] = {};
  for (auto it = bars.rbegin(); it != bars.rend(); ++it) {
    // Categories must be unique: a repeated label gets an invisible difference.
    QString label = elided(it->label, kWhatIfLabelLength);
    while (categories.contains(label)) label += QChar(0x200b);
    categories << label;
    for (int s = 0; s < kRangeSet; ++s) {
      sets[s]->append(s == it->set ? it->low_s * unit.per_second : 0.0);
    }
    sets[kRangeSet]->append((it->high_s - it->low_s) * unit.per_second);
    used[it->set] = true;
    used[kRangeSet] |= it->high_s > it->low_s;
  }
  for (const Bar& b : bars) labels_ << b.label;
  for (int s = 0; s < kSets; ++s) {
    if (used[s]) {
      series->append(sets[s]);
    } else {
      delete sets[s];
    }
  }
  series->setBarWidth(0.7);
  add_bars(series, categories, QString(), tr("elapsed time (%1)").arg(unit.name),
           largest * unit.per_second);
  chart()->legend()->setVisible(true);

  std::vector<QString> tips;
  for (auto it = bars.rbegin(); it != bars.rend(); ++it) tips.push_back(it->tip);
  connect(series, &QHorizontalStackedBarSeries::hovered, this,
          [this, tips](bool on, int index, QBarSet*) {
            if (!on || index < 0 || size_t(index) >= tips.size()) return QToolTip::hideText();
            QToolTip::showText(QCursor::pos(), tips[size_t(index)], this);
          });
}

std::vector<double> WhatIfChart::sums_s(bool with_range) const {
  std::vector<double> bars;
  const auto series = chart()->series();
  if (series.isEmpty()) return bars;
  const auto sets = static_cast<QHorizontalStackedBarSeries*>(series.first())->barSets();
  if (sets.isEmpty()) return bars;
  for (int k = int(sets.first()->count()) - 1; k >= 0; --k) {
    double sum = 0;
    for (QBarSet* set : sets) {
      if (with_range || set->label() != tr("range")) sum += set->at(k);
    }
    bars.push_back(sum / per_second_);
  }
  return bars;
}

std::vector<double> WhatIfChart::bars_s() const {
  return sums_s(true);
}

std::vector<double> WhatIfChart::range_starts_s() const {
  return sums_s(false);
}

}  // namespace quartz::viewer
