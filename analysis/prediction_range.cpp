#include "analysis/prediction_range.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "analysis/scheduler_model.h"
#include "analysis/text_format.h"

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

void widen_by_sampling(PredictionRange& r, double change_s, double sampled_s, double bound_s) {
  if (!(sampled_s > 0) || !(bound_s > 0)) return;
  r.sampling_s = std::fabs(change_s) * std::min(1.0, bound_s / sampled_s);
  r.low_s = std::max(0.0, r.low_s - r.sampling_s);
  r.high_s += r.sampling_s;
}

double relative_width(double likely_s, const PredictionRange& r) {
  return likely_s > 0 ? (r.high_s - r.low_s) / likely_s : 0;
}

RangeSpan range_span(double likely_s, const PredictionRange& r, std::span<const ModelCheck> models,
                     bool as_recorded) {
  RangeSpan span;
  const std::vector<double>& by = r.by_model_s;
  if (by.empty() || by.size() > models.size()) return span;
  std::vector<bool> left_out(by.size());
  for (size_t m = 0; m < by.size(); ++m) {
    left_out[m] = models[m].contradicted || (models[m].recorded_only && !as_recorded);
  }
  const auto [low, high] = ends(by, left_out);
  span.low_model = models[low].name;
  span.high_model = models[high].name;
  span.low_model_s = by[low];
  span.high_model_s = by[high];
  // The models' own span: the sampled time's share of the width is wide_reason's to say.
  if (relative_width(likely_s, range_over(by, left_out)) <= kWideRange ||
      span.low_model == span.high_model) {
    return span;
  }
  try {
    span.why = model_differences(scheduler_models_named(span.low_model).front(),
                                 scheduler_models_named(span.high_model).front());
  } catch (const std::invalid_argument&) {
    // Stored by a version that named its models otherwise: the names say what they can.
  }
  if (span.why.empty()) span.why = "their scheduling";
  return span;
}

std::string wide_reason(double likely_s, const PredictionRange& r,
                        std::span<const ModelCheck> models) {
  if (relative_width(likely_s, r) <= kWideRange) return {};
  const RangeSpan span = range_span(likely_s, r, models);
  std::string out;
  if (!span.why.empty()) {
    out = span.low_model + " " + text::seconds(span.low_model_s) + " to " + span.high_model + " " +
          text::seconds(span.high_model_s) + ", which differ in " + span.why;
  }
  if (r.sampling_s > 0) {
    out += (out.empty() ? "" : "; and ") + std::string("the procedure's time as sampled, ±") +
           text::seconds(r.sampling_s) + " (a shorter --period-us narrows it)";
  }
  return out;
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
