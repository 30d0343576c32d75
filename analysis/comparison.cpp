#include "analysis/comparison.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "analysis/sampling_error.h"

namespace quartz::analysis {
namespace {

// One figure over one side's runs. Its values that count: one per run (0 where the run
// lacks the figure), with three runs or more all but the largest. Something else on the
// machine only ever slows a run down; one slowed run would move a mean, and its spread
// hide any change (a 20% slowdown had been hidden behind a 92 ms bound).
struct Series {
  std::vector<double> kept;
  double sampling_variance = 0;  // of the centre, summed over the runs
  double periods_s = 0;          // the runs' mean period, for a figure's ends

  double centre() const {
    return std::accumulate(kept.begin(), kept.end(), 0.0) / static_cast<double>(kept.size());
  }
  double squares() const {  // of the kept values' deviations from their mean
    const double m = centre();
    double s = 0;
    for (double v : kept) s += (v - m) * (v - m);
    return s;
  }
};

Series series_of(const std::vector<ProfileView>& runs, auto&& figure) {
  Series s;
  const double n = static_cast<double>(runs.size());
  for (const ProfileView& run : runs) {
    const double t = std::max(0.0, figure(run)), p = run.quality.period_s;
    s.kept.push_back(t);
    s.sampling_variance += sampling_variance(t, p, run.elapsed_s) / (n * n);
    s.periods_s += p / n;
  }
  std::sort(s.kept.begin(), s.kept.end());
  if (s.kept.size() >= 3) s.kept.pop_back();
  return s;
}

double noise(const Series& a, const Series& b) {
  const double sampling =
      2 * std::sqrt(a.sampling_variance + b.sampling_variance) + a.periods_s + b.periods_s;
  const size_t na = a.kept.size(), nb = b.kept.size();
  if (na + nb < 3) return sampling;
  const double df = static_cast<double>(na + nb - 2);
  const double pooled = std::sqrt((a.squares() + b.squares()) / df);
  const double t = boost::math::quantile(boost::math::students_t(df), 0.9995);
  return std::max(sampling, t * pooled * std::sqrt(1.0 / na + 1.0 / nb));
}

Change change_of(const std::string& name, const Series& a, const Series& b) {
  Change c;
  c.name = name;
  c.a_s = a.centre();
  c.b_s = b.centre();
  c.noise_s = noise(a, b);
  return c;
}

// Rows of both sides matched by name (`rows_of` gives a run's rows); those that changed
// beyond noise, largest change first.
std::vector<Change> changes(const std::vector<ProfileView>& a, const std::vector<ProfileView>& b,
                            auto&& rows_of) {
  // Each run's time by name, once: a run may have thousands of rows.
  std::set<std::string> names;
  std::unordered_map<const ProfileView*, std::unordered_map<std::string, double>> times;
  for (const auto* side : {&a, &b}) {
    for (const ProfileView& run : *side) {
      for (const auto& row : rows_of(run)) {
        names.insert(row.name);
        times[&run][row.name] += row.totals.normalized_s;
      }
    }
  }
  std::vector<Change> out;
  for (const std::string& name : names) {
    auto figure = [&](const ProfileView& run) {
      const auto& of_run = times[&run];
      const auto it = of_run.find(name);
      return it == of_run.end() ? 0.0 : it->second;
    };
    Change c = change_of(name, series_of(a, figure), series_of(b, figure));
    if (c.beyond_noise()) out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const Change& x, const Change& y) {
    return std::fabs(x.b_s - x.a_s) > std::fabs(y.b_s - y.a_s);
  });
  return out;
}

bool has_finding(const std::vector<Finding>& findings, const Finding& f) {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& g) {
    return g.property == f.property && g.subject == f.subject;
  });
}

// Findings worth naming (5% of elapsed or more) in every run of `from` that no run of
// `other` has at all (1% or more).
std::vector<Finding> only_in(const std::vector<ProfileView>& from,
                             const std::vector<ProfileView>& other) {
  std::vector<Finding> out;
  for (const Finding& f : diagnose(from.front(), 0.05)) {
    if (about_measurement(f.property)) continue;
    const bool in_all = std::all_of(from.begin() + 1, from.end(), [&](const ProfileView& run) {
      return has_finding(diagnose(run, 0.05), f);
    });
    const bool in_other = std::any_of(other.begin(), other.end(), [&](const ProfileView& run) {
      return has_finding(diagnose(run, 0.01), f);
    });
    if (in_all && !in_other) out.push_back(f);
  }
  return out;
}

}  // namespace

bool Change::beyond_noise() const {
  return std::fabs(b_s - a_s) > noise_s;
}

std::optional<double> Change::relative() const {
  if (!(a_s > 0)) return std::nullopt;
  return (b_s - a_s) / a_s;
}

Comparison compare(const std::vector<ProfileView>& a, const std::vector<ProfileView>& b) {
  Comparison c;
  c.runs_a = a.size();
  c.runs_b = b.size();
  c.run_to_run = a.size() + b.size() >= 3;
  auto elapsed = [](const ProfileView& run) { return run.elapsed_s; };
  c.elapsed = change_of("elapsed", series_of(a, elapsed), series_of(b, elapsed));
  c.procedures = changes(
      a, b, [](const ProfileView& run) -> auto& { return run.procedures; });
  for (Change& change : c.procedures) {
    for (const ProcedureRow& row : b.back().procedures) {
      if (row.name == change.name) change.location = row.location;
    }
  }
  c.locks = changes(
      a, b, [](const ProfileView& run) -> auto& { return run.locks; });
  c.appeared = only_in(b, a);
  c.went_away = only_in(a, b);
  return c;
}

bool slower_than(const Comparison& c, double percent) {
  const std::optional<double> change = c.elapsed.relative();
  return change && *change * 100 > percent && c.elapsed.beyond_noise();
}

}  // namespace quartz::analysis
