// How far a figure the sampler counted can be off: each interval of period p goes whole to
// what was on the stack at its end, so a figure T of W (the elapsed time for a normalized
// figure, P times it for processor time) is a binomial count of intervals, variance
// T p (1 − T/W) (none for what is always there, such as main), and its ends can be off by a
// period. One definition for `quartz compare`'s noise (comparison.h) and `quartz predict`'s
// procedure changes (prediction_range.h widen_by_sampling).
#pragma once

#include <algorithm>
#include <cmath>

namespace quartz::analysis {

inline double sampling_variance(double figure_s, double period_s, double whole_s) {
  const double f = whole_s > 0 ? std::min(1.0, figure_s / whole_s) : 1.0;
  return std::max(0.0, figure_s) * period_s * (1 - f);
}

// Two standard deviations and a period: what one run's figure can be off by.
inline double sampling_bound(double figure_s, double period_s, double whole_s) {
  return 2 * std::sqrt(sampling_variance(figure_s, period_s, whole_s)) + period_s;
}

}  // namespace quartz::analysis
