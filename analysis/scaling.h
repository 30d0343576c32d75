// How a program scales across runs on different numbers of processors (`quartz scale`),
// by JavaPSL's cross-experiment properties (Fahringer & Seragiotto, §5.2), with the runs
// on the fewest processors, p0 (ideally one), as the base experiment:
//   speedup(p)        T(p0) / T(p), of the median elapsed times
//   efficiency(p)     T(p0) p0 / (T(p) p); of a region r, the same of its normalized time
//   inefficiency      1 - efficiency
//   non-scalability   mean - minimum efficiency over the runs above the base; needs two
//                     processor counts above it to say anything
//   lost(p)           T_r(p) p - T_r(p0) p0: the processor capacity r took beyond the base's,
//                     where the time lost as processors are added goes. Over procedures'
//                     own (self) normalized times it adds up to the program's.
// Regions: procedures (self time), synchronization objects and threads, matched by name.
#pragma once

#include <string>
#include <vector>

#include "analysis/profile_view.h"

namespace quartz::analysis {

struct ScalePoint {
  uint32_t processors = 0;
  std::vector<ProfileView> runs;  // the repeats
};

struct RegionScaling {
  std::string kind;  // "procedure", "object" or "thread"
  std::string name;
  std::string location;
  std::vector<double> time_s;      // normalized time in each point's median run
  std::vector<double> efficiency;  // per point (1 at the base); 0 where it had no time
  std::vector<double> lost_s;      // per point (0 at the base)
  double non_scalability = 0;
};

struct Scaling {
  std::vector<uint32_t> processors;  // ascending; [0] is the base
  std::vector<double> elapsed_s;     // median of the repeats
  std::vector<double> min_s, max_s;  // their spread
  std::vector<size_t> runs;          // repeats per point
  std::vector<double> speedup, efficiency;
  std::vector<double> ideal_speedup;  // p / p0: every processor added fully used
  double non_scalability = 0;
  bool non_scalability_known = false;  // two or more points above the base
  std::vector<RegionScaling> regions;  // by time lost at the most processors, largest first
};

// The points need not be sorted; each must have at least one run.
Scaling scale(std::vector<ScalePoint> points);

// A series' runs as points: grouped by the processors each ran on, fewest first.
std::vector<ScalePoint> points_by_processors(std::vector<ProfileView> runs);

}  // namespace quartz::analysis
