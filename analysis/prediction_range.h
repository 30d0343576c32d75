// A prediction as the range the plausible scheduler models give (scheduler_model.h), and
// which of several groupings those ranges tell apart (DESIGN.md §3 "LBF and CP": recommend a
// grouping only where the ranges separate it). One definition for `quartz predict`'s text
// and JSON, the viewer and the accuracy benchmark's reading of them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace quartz::analysis {

// One question's answer under each model, and the range over the plausible ones.
struct PredictionRange {
  double low_s = 0, high_s = 0;
  std::vector<double> by_model_s;  // in the order of Predictions::models; the first most likely
};

// Which models can have been the recorded machine's, from each model's replay of the
// recorded configuration against the recorded time: all but those that miss it by more
// than kImplausible and by kImplausible more than the most likely model (the first, always
// kept) does. A recording on a busy machine judges none (other processes, not the model,
// made its time).
inline constexpr double kImplausible = 0.10;
std::vector<bool> plausible_models(std::span<const double> recorded_by_model_s, double observed_s,
                                   bool busy);

// The range over the models `plausible` keeps (the first model always counts: its figure is
// the prediction, and the range holds it). Empty figures: an empty range at 0.
PredictionRange range_over(std::span<const double> by_model_s, const std::vector<bool>& plausible);

// (high − low) / the most likely figure: how far apart the models are; 0 without a figure.
double relative_width(double likely_s, const PredictionRange& r);

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
