#include "analysis/prediction_range.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/scheduler_model.h"

namespace quartz::analysis {

PredictionRange range_over(std::span<const double> by_model_s) {
  PredictionRange r;
  r.by_model_s.assign(by_model_s.begin(), by_model_s.end());
  if (by_model_s.empty()) return r;
  const auto [low, high] = std::minmax_element(by_model_s.begin(), by_model_s.end());
  r.low_s = *low * (1 - kResidualError);
  r.high_s = *high * (1 + kResidualError);
  return r;
}

double relative_width(double likely_s, const PredictionRange& r) {
  return likely_s > 0 ? (r.high_s - r.low_s) / likely_s : 0;
}

RangeSpan range_span(double likely_s, const PredictionRange& r,
                     std::span<const ModelCheck> models) {
  RangeSpan span;
  const std::vector<double>& by = r.by_model_s;
  if (by.empty() || by.size() > models.size()) return span;
  const auto [low, high] = std::minmax_element(by.begin(), by.end());
  span.low_model = models[static_cast<size_t>(low - by.begin())].name;
  span.high_model = models[static_cast<size_t>(high - by.begin())].name;
  span.low_model_s = *low;
  span.high_model_s = *high;
  if (relative_width(likely_s, r) <= kWideRange || span.low_model == span.high_model) return span;
  try {
    span.why = model_differences(scheduler_models_named(span.low_model).front(),
                                 scheduler_models_named(span.high_model).front());
  } catch (const std::invalid_argument&) {
    // Stored by a version that named its models otherwise: the names say what they can.
  }
  if (span.why.empty()) span.why = "their scheduling";
  return span;
}

bool ranges_separate(const RangedFigure& faster, const RangedFigure& slower) {
  return slower.low_s > faster.high_s;
}

size_t indistinguishable_from_first(std::span<const RangedFigure> ordered) {
  if (ordered.empty()) return 0;
  size_t n = 1;
  for (size_t i = 1; i < ordered.size(); ++i) {
    if (!ranges_separate(ordered[0], ordered[i])) ++n;
  }
  return n;
}

}  // namespace quartz::analysis
