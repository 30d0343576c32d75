// A prediction as the range the plausible scheduler models give (scheduler_model.h), and
// which of several groupings those ranges tell apart (DESIGN.md §3 "LBF and CP": recommend a
// grouping only where the ranges separate it). One definition for `quartz predict`'s text
// and JSON, the viewer and the accuracy benchmark's reading of them.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace quartz::analysis {

// A scheduler model's replay of the recorded configuration, to set against the recorded
// time; a prediction's models in the order of every range's by_model_s.
struct ModelCheck {
  std::string name;
  double recorded_s = 0;
  // Its replay of the recording is more than kContradicted off the recorded time: the
  // recording rules it out, and it widens no range (its figures are still shown).
  bool contradicted = false;
  // It keeps the recorded lock order while the most likely model barges: it counts in the
  // recorded configuration's range only (scheduler_model.h recorded_configuration_only).
  bool recorded_only = false;
};

// One question's answer under each model, and its range.
struct PredictionRange {
  double low_s = 0, high_s = 0;
  std::vector<double> by_model_s;  // in the order of Predictions::models; the first most likely
  // Both ends moved out by this much more: how far the answer can move with the time of the
  // procedure it changes, which the sampler counted (widen_by_sampling). 0: no such change.
  double sampling_s = 0;
};

// The replay's own error where the models agree: every range is widened by it on both
// sides. Measured (docs/performance.md "Ranges"): where every model gave the same figure to
// 0.5%, --placement runs measured up to 3.2% from it.
inline constexpr double kResidualError = 0.03;

// A model whose replay of the recording is further off than this is ruled out by it: more
// than the profiled run's own excess over the plain one (3-18%), which the models share.
// (dedup's `slices+instant_wake+wake_to_last+no_pull` replayed its 0.95 s recording as
// 4.2 s and made its every range 390% wide.)
inline constexpr double kContradicted = 0.25;

// Which of the models, by their replays of the recording (`recorded_by_model_s`, the most
// likely first) against the recorded time, the recording rules out. Never the first.
std::vector<bool> contradicted_models(std::span<const double> recorded_by_model_s,
                                      double recorded_s);

// The models a range counts, said as "N" or, when the recording ruled some out, "K of N".
std::string models_counted(std::span<const ModelCheck> models);

// [the lowest figure × (1 − kResidualError), the highest × (1 + kResidualError)] over the
// models not `left_out` (a figure beyond left_out's size counts): the first model's figure,
// the prediction, always inside. No figures: an empty range at 0.
PredictionRange range_over(std::span<const double> by_model_s,
                           const std::vector<bool>& left_out = {});

// A procedure change's range, widened by how far its answer can move with the procedure's
// time: the sampler counted `sampled_s` of it, give or take `bound_s` (sampling_error.h), and
// the change moved the answer `change_s` from the recording's replay alone, in proportion.
void widen_by_sampling(PredictionRange& r, double change_s, double sampled_s, double bound_s);

// (high − low) / the most likely figure: how far apart the models are; 0 without a figure.
double relative_width(double likely_s, const PredictionRange& r);

// A range wider than this (of its most likely figure) decides little: it says why.
inline constexpr double kWideRange = 0.25;

// What a range spans: the models that give its lowest and its highest figure (`models` in
// by_model_s's order, the contradicted left out, and unless `as_recorded` the recorded
// configuration's only), and when it is wider than kWideRange, why: the parts of the
// scheduler those two differ in (scheduler_model.h model_differences).
struct RangeSpan {
  std::string low_model, high_model;
  double low_model_s = 0, high_model_s = 0;  // their figures
  std::string why;                           // empty unless wide
};
RangeSpan range_span(double likely_s, const PredictionRange& r, std::span<const ModelCheck> models,
                     bool as_recorded = false);

// A wide range's reason as `quartz predict` and the viewer say it ("" unless wide): "barging
// 840.00 ms to fair 1.200 s, which differ in who gets a free mutex", and for a procedure
// change whose sampled time moves it far, "the procedure's time as sampled, ±31.50 ms (a
// shorter --period-us narrows it)".
std::string wide_reason(double likely_s, const PredictionRange& r,
                        std::span<const ModelCheck> models);

// Ranges [low, high] of alternatives (groupings), ordered by their most likely figure.
struct RangedFigure {
  double likely_s = 0, low_s = 0, high_s = 0;
};
// Whether `slower`'s range lies wholly above `faster`'s: only then is `faster` better.
bool ranges_separate(const RangedFigure& faster, const RangedFigure& slower);
// How many of `ordered` (fastest most likely figure first) cannot be told apart from the
// first: the first itself, and every other whose range reaches down to the first's top
// (its low ≤ the first's high, ranges_separate false). 1: the first is the best, its range below
// all others; 0 when there is nothing.
size_t indistinguishable_from_first(std::span<const RangedFigure> ordered);

}  // namespace quartz::analysis
