#include "overhead/cost_trial.h"

#include <algorithm>

namespace quartz::sampler {

bool CostTrial::end_phase(const PaceReading& now) {
  if (!running()) return false;
  // Counts only grow; a reading taken out of order counts nothing.
  auto since = [](uint64_t now_count, uint64_t last) {
    return now_count > last ? now_count - last : 0;
  };
  phases_[phase_] =
      PaceReading{since(now.other_calls, last_.other_calls),
                  since(now.tried_calls, last_.tried_calls), since(now.cpu_ns, last_.cpu_ns)};
  last_ = now;
  return ++phase_ == kPhases;
}

double CostTrial::mean_call_ns() const {
  if (procedure_ == 0 || phase_ < kPhases) return 0;
  double on_calls = 0, on_cpu = 0, off_calls = 0, off_cpu = 0, tried_on = 0;
  for (uint32_t p = 0; p < kPhases; ++p) {
    const PaceReading& r = phases_[p];
    (entry_on(p) ? on_calls : off_calls) += static_cast<double>(r.other_calls);
    (entry_on(p) ? on_cpu : off_cpu) += static_cast<double>(r.cpu_ns);
    if (entry_on(p)) tried_on += static_cast<double>(r.tried_calls);
  }
  if (off_calls == 0 || tried_on == 0) return 0;
  // With the entry on the program did on_calls of the work in on_cpu; at the pace it kept
  // with the entry off that work takes on_calls / off pace. The rest is the entry's.
  return (on_cpu - on_calls * off_cpu / off_calls) / tried_on;
}

double CostTrial::pace(uint32_t phase) const {
  const PaceReading& r = phases_[phase];
  if (r.other_calls < kMinPhaseCalls || r.cpu_ns == 0) return 0;
  return static_cast<double>(r.other_calls) / static_cast<double>(r.cpu_ns);
}

double CostTrial::call_ns() const {
  if (procedure_ == 0 || phase_ < kPhases) return -1;
  double slowest_off = 0, fastest_on = 0;
  for (uint32_t p = 0; p < kPhases; ++p) {
    const double phase_pace = pace(p);
    if (phase_pace == 0) return -1;
    double& bound = entry_on(p) ? fastest_on : slowest_off;
    if (bound == 0 || (entry_on(p) ? phase_pace > bound : phase_pace < bound)) bound = phase_pace;
  }
  const double cost = mean_call_ns();
  return slowest_off > fastest_on && cost > 0 ? cost : -1;
}

bool CostTrial::steady() const {
  if (procedure_ == 0 || phase_ < kPhases) return false;
  for (const bool on : {true, false}) {
    double slowest = 0, fastest = 0;
    for (uint32_t p = 0; p < kPhases; ++p) {
      if (entry_on(p) != on) continue;
      const double phase_pace = pace(p);
      if (phase_pace == 0) return false;
      slowest = slowest == 0 ? phase_pace : std::min(slowest, phase_pace);
      fastest = std::max(fastest, phase_pace);
    }
    if (fastest > kSteadySpread * slowest) return false;
  }
  return true;
}

}  // namespace quartz::sampler
