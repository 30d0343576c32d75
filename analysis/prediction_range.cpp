#include "analysis/prediction_range.h"

#include <algorithm>
#include <cmath>

namespace quartz::analysis {

std::vector<bool> plausible_models(std::span<const double> recorded_by_model_s, double observed_s,
                                   bool busy) {
  std::vector<bool> out;
  const auto error = [&](double s) { return observed_s > 0 ? std::fabs(s / observed_s - 1) : 0; };
  for (size_t m = 0; m < recorded_by_model_s.size(); ++m) {
    const double e = error(recorded_by_model_s[m]);
    out.push_back(busy || m == 0 || e <= kImplausible ||
                  e <= error(recorded_by_model_s[0]) + kImplausible);
  }
  return out;
}

PredictionRange range_over(std::span<const double> by_model_s, const std::vector<bool>& plausible) {
  PredictionRange r;
  r.by_model_s.assign(by_model_s.begin(), by_model_s.end());
  if (by_model_s.empty()) return r;
  r.low_s = r.high_s = by_model_s[0];
  for (size_t m = 1; m < by_model_s.size(); ++m) {
    if (m >= plausible.size() || !plausible[m]) continue;
    r.low_s = std::min(r.low_s, by_model_s[m]);
    r.high_s = std::max(r.high_s, by_model_s[m]);
  }
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
