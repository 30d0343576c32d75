#include "analysis/scaling.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace quartz::analysis {
namespace {

// The run of median elapsed time (the lower of the two middle ones).
const ProfileView& median_run(const ScalePoint& point) {
  std::vector<const ProfileView*> runs;
  for (const ProfileView& run : point.runs) runs.push_back(&run);
  std::sort(runs.begin(), runs.end(),
            [](const ProfileView* a, const ProfileView* b) { return a->elapsed_s < b->elapsed_s; });
  return *runs[(runs.size() - 1) / 2];
}

double efficiency(double base_s, uint32_t base_p, double time_s, uint32_t p) {
  return time_s > 0 ? base_s * base_p / (time_s * p) : 0;
}

// Mean minus minimum of the efficiencies above the base.
double non_scalability(const std::vector<double>& efficiencies) {
  if (efficiencies.size() < 2) return 0;
  const auto above = std::vector<double>(efficiencies.begin() + 1, efficiencies.end());
  const double mean = std::accumulate(above.begin(), above.end(), 0.0) / above.size();
  return mean - *std::min_element(above.begin(), above.end());
}

struct RegionTimes {
  std::string location;
  std::vector<double> time_s;
};

// Each region's normalized time in each median run, by kind and name.
std::map<std::pair<std::string, std::string>, RegionTimes> region_times(
    const std::vector<const ProfileView*>& medians) {
  std::map<std::pair<std::string, std::string>, RegionTimes> regions;
  const size_t n = medians.size();
  auto add = [&](const char* kind, const std::string& name, const std::string& location, size_t i,
                 double time_s) {
    RegionTimes& r = regions[{kind, name}];
    r.time_s.resize(n);
    r.time_s[i] += time_s;
    if (r.location.empty()) r.location = location;
  };
  for (size_t i = 0; i < n; ++i) {
    for (const ProcedureRow& row : medians[i]->procedures) {
      add("procedure", row.name, row.location, i, row.totals.normalized_self_s);
    }
    for (const LockRow& row : medians[i]->locks) {
      add("object", row.name, "", i, row.totals.normalized_s);
    }
    for (const ThreadRow& row : medians[i]->threads) {
      add("thread", row.name, "", i, row.totals.normalized_s);
    }
  }
  return regions;
}

}  // namespace

Scaling scale(std::vector<ScalePoint> points) {
  std::sort(points.begin(), points.end(),
            [](const ScalePoint& a, const ScalePoint& b) { return a.processors < b.processors; });
  Scaling s;
  std::vector<const ProfileView*> medians;
  for (const ScalePoint& point : points) {
    const ProfileView& median = median_run(point);
    medians.push_back(&median);
    s.processors.push_back(point.processors);
    s.elapsed_s.push_back(median.elapsed_s);
    s.runs.push_back(point.runs.size());
    double lo = median.elapsed_s, hi = median.elapsed_s;
    for (const ProfileView& run : point.runs) {
      lo = std::min(lo, run.elapsed_s);
      hi = std::max(hi, run.elapsed_s);
    }
    s.min_s.push_back(lo);
    s.max_s.push_back(hi);
  }
  if (points.empty()) return s;
  const uint32_t base_p = s.processors[0];
  for (size_t i = 0; i < points.size(); ++i) {
    s.speedup.push_back(s.elapsed_s[i] > 0 ? s.elapsed_s[0] / s.elapsed_s[i] : 0);
    s.ideal_speedup.push_back(static_cast<double>(s.processors[i]) / base_p);
    s.efficiency.push_back(efficiency(s.elapsed_s[0], base_p, s.elapsed_s[i], s.processors[i]));
  }
  s.non_scalability_known = points.size() >= 3;
  s.non_scalability = non_scalability(s.efficiency);

  for (auto& [key, times] : region_times(medians)) {
    RegionScaling r;
    r.kind = key.first;
    r.name = key.second;
    r.location = times.location;
    r.time_s = times.time_s;
    for (size_t i = 0; i < points.size(); ++i) {
      r.efficiency.push_back(efficiency(r.time_s[0], base_p, r.time_s[i], s.processors[i]));
      r.lost_s.push_back(r.time_s[i] * s.processors[i] - r.time_s[0] * base_p);
    }
    r.non_scalability = non_scalability(r.efficiency);
    s.regions.push_back(std::move(r));
  }
  std::stable_sort(s.regions.begin(), s.regions.end(),
                   [](const RegionScaling& a, const RegionScaling& b) {
                     return a.lost_s.back() > b.lost_s.back();
                   });
  return s;
}

std::vector<ScalePoint> points_by_processors(std::vector<ProfileView> runs) {
  std::map<uint32_t, ScalePoint> points;
  for (ProfileView& view : runs) {
    ScalePoint& point = points[view.processors];
    point.processors = view.processors;
    point.runs.push_back(std::move(view));
  }
  std::vector<ScalePoint> out;
  for (auto& [processors, point] : points) out.push_back(std::move(point));
  return out;
}

}  // namespace quartz::analysis
