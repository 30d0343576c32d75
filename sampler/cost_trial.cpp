#include "sampler/cost_trial.h"

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

double CostTrial::call_ns() const {
  if (procedure_ == 0 || phase_ < kPhases) return -1;
  double slowest_off = 0, fastest_on = 0;
  double on_calls = 0, on_cpu = 0, off_calls = 0, off_cpu = 0, tried_on = 0;
  bool first_on = true, first_off = true;
  for (uint32_t p = 0; p < kPhases; ++p) {
    const PaceReading& r = phases_[p];
    if (r.other_calls < kMinPhaseCalls || r.cpu_ns == 0) return -1;
    const double pace = static_cast<double>(r.other_calls) / static_cast<double>(r.cpu_ns);
    if (entry_on(p)) {
      fastest_on = first_on || pace > fastest_on ? pace : fastest_on;
      first_on = false;
      on_calls += static_cast<double>(r.other_calls);
      on_cpu += static_cast<double>(r.cpu_ns);
      tried_on += static_cast<double>(r.tried_calls);
    } else {
      slowest_off = first_off || pace < slowest_off ? pace : slowest_off;
      first_off = false;
      off_calls += static_cast<double>(r.other_calls);
      off_cpu += static_cast<double>(r.cpu_ns);
    }
  }
  if (!(slowest_off > fastest_on) || tried_on == 0) return -1;
  // With the entry on the program did on_calls of the work in on_cpu; at the pace it kept
  // with the entry off that work takes on_calls / off pace. The rest is the entry's.
  const double without_ns = on_calls * off_cpu / off_calls;
  return (on_cpu - without_ns) / tried_on;
}

}  // namespace quartz::sampler
