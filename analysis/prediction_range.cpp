#include "analysis/prediction_range.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "analysis/scheduler_model.h"

namespace quartz::analysis {

namespace {

// The index of the lowest and the highest figure among the models not left out (the first
// always counts); {0, 0} without figures.
std::pair<size_t, size_t> ends(std::span<const double> by_model_s,
                               const std::vector<bool>& left_out) {
  size_t low = 0, high = 0;
  for (size_t m = 1; m < by_model_s.size(); ++m) {
    if (m < left_out.size() && left_out[m]) continue;
    if (by_model_s[m] < by_model_s[low]) low = m;
    if (by_model_s[m] > by_model_s[high]) high = m;
  }
  return {low, high};
}

}  // namespace

std::vector<bool> contradicted_models(std::span<const double> recorded_by_model_s,
                                      double recorded_s) {
  std::vector<bool> out(recorded_by_model_s.size());
  if (!(recorded_s > 0)) return out;
  for (size_t m = 1; m < out.size(); ++m) {
    out[m] = std::fabs(recorded_by_model_s[m] / recorded_s - 1) > kContradicted;
  }
  return out;
}

std::string models_counted(std::span<const ModelCheck> models) {
  size_t ruled_out = 0;
  for (const ModelCheck& m : models) ruled_out += m.contradicted;
  const std::string all = std::to_string(models.size());
  return ruled_out ? std::to_string(models.size() - ruled_out) + " of " + all : all;
}

PredictionRange range_over(std::span<const double> by_model_s, const std::vector<bool>& left_out) {
  PredictionRange r;
  r.by_model_s.assign(by_model_s.begin(), by_model_s.end());
  if (by_model_s.empty()) return r;
  const auto [low, high] = ends(by_model_s, left_out);
  r.low_s = by_model_s[low] * (1 - kResidualError);
  r.high_s = by_model_s[high] * (1 + kResidualError);
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
  std::vector<bool> left_out(by.size());
  for (size_t m = 0; m < by.size(); ++m) left_out[m] = models[m].contradicted;
  const auto [low, high] = ends(by, left_out);
  span.low_model = models[low].name;
  span.high_model = models[high].name;
  span.low_model_s = by[low];
  span.high_model_s = by[high];
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
