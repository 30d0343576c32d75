// The critical path of the recorded run's replay (threads apart, each on a processor of
// its own), named: how long, how much of it on the processor, and the threads, procedures
// and locks it runs through.
#pragma once

#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

struct SimulationResult;  // simulation.h: kept out of the viewer, whose Qt defines `emit`

struct NamedTime {
  std::string name;
  double seconds = 0;
};

struct CriticalPath {
  double length_s = 0;
  double share = 0;  // of the recorded elapsed time
  double cpu_s = 0, delay_s = 0;
  std::vector<NamedTime> threads, procedures, locks;  // descending; procedures inclusive
};

// The path of `r` (a replay with SimulationConfig::critical_path), against the run's
// elapsed time `observed_s`: each list its ten longest.
CriticalPath describe_path(const profile::Run& run, const SimulationResult& r, double observed_s);

}  // namespace quartz::analysis
