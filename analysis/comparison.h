// What changed between two runs of a program, or two series of runs (`quartz compare`):
// the elapsed time, each procedure's and lock's normalized time matched by name, and the
// findings that appeared or went away, each change with a noise bound.
//
// Noise, from the runs themselves:
//   - sampling: each interval of period p goes whole to what was on the stack at its end,
//     so a figure T of elapsed E is a binomial count of intervals, variance T p (1 - T/E)
//     (none for what is always there, such as main), and its ends can be off by a period;
//     bound 2 sqrt(v_A/n_A + v_B/n_B) + p_A + p_B for the centre of n runs per side;
//   - run to run: with three runs or more in all, the pooled standard deviation of the
//     runs' figures, Student's t at 99.9% two-sided times the standard error of the
//     difference (a gate should almost never cry wolf: 0.2% of same-build comparisons, by
//     simulation with normal noise and 3 to 6 runs a side).
// Each side's figure is the mean of its runs, leaving out the largest of three or more (the
// run another process most slowed: interference only ever slows).
// A change is beyond noise when it exceeds the larger bound. With one run per side only
// the sampling bound is known: the machine's run-to-run variation is not.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnosis.h"
#include "analysis/profile_view.h"

namespace quartz::analysis {

struct Change {
  std::string name;         // procedure or lock; "elapsed" for the run
  std::string location;     // a procedure's source location
  double a_s = 0, b_s = 0;  // each side's runs' mean, the largest of 3+ left out
  double noise_s = 0;       // the bound above
  bool beyond_noise() const;
  std::optional<double> relative() const;  // (b - a) / a
};

struct Comparison {
  size_t runs_a = 0, runs_b = 0;
  bool run_to_run = false;  // the bounds include the runs' spread (some side has 2+ runs)
  Change elapsed;
  std::vector<Change> procedures;  // beyond noise, largest change first
  std::vector<Change> locks;       // beyond noise, largest change first
  std::vector<Finding> appeared;   // in every run of B, in no run of A (property and subject)
  std::vector<Finding> went_away;  // in every run of A, in no run of B
};

// Each side is one or more runs of the program.
Comparison compare(const std::vector<ProfileView>& a, const std::vector<ProfileView>& b);

// True when B's elapsed time is more than `percent`% above A's, beyond noise.
bool slower_than(const Comparison& c, double percent);

}  // namespace quartz::analysis
