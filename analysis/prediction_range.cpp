#include "analysis/prediction_range.h"

#include <algorithm>

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
