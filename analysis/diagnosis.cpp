// The properties' names, and diagnose(): every rule (diagnosis_properties.h) on the run,
// its findings ranked.
#include "analysis/diagnosis.h"

#include <algorithm>

#include "analysis/diagnosis_properties.h"

namespace quartz::analysis {

std::string property_name(Property property) {
  switch (property) {
    case Property::serial_bottleneck:
      return "serial bottleneck";
    case Property::lock_contention:
      return "lock contention";
    case Property::spin_waste:
      return "spin waste";
    case Property::load_imbalance:
      return "load imbalance";
    case Property::starvation:
      return "start-up and wind-down starvation";
    case Property::oversubscription:
      return "oversubscription";
    case Property::other_processes:
      return "processors taken by other processes";
    case Property::kernel_blocking:
      return "blocking not overlapped";
    case Property::profiler_intrusion:
      return "profiler intrusion";
  }
  return "?";
}

bool about_measurement(Property property) {
  return property == Property::other_processes || property == Property::profiler_intrusion;
}

std::vector<Finding> diagnose(const ProfileView& view, double min_severity) {
  std::vector<Finding> all;
  if (!(view.elapsed_s > 0)) return all;
  const double overhead = diagnosis::intrusion(view);
  diagnosis::serial_bottlenecks(view, overhead, all);
  diagnosis::lock_contention(view, overhead, all);
  diagnosis::spin_waste(view, overhead, all);
  diagnosis::load_imbalance(view, overhead, all);
  diagnosis::starvation(view, overhead, all);
  diagnosis::ready_time(view, overhead, all);
  diagnosis::kernel_blocking(view, overhead, all);
  diagnosis::profiler_intrusion(view, overhead, all);
  diagnosis::leave_oversubscription_the_rest(view, all);
  diagnosis::merge_spinning_contention(view, all);
  std::vector<Finding> found;
  for (Finding& f : all) {
    if (f.severity >= min_severity) found.push_back(std::move(f));
  }
  // The program's findings first, then the measurement's; each most severe first.
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    const bool a_measurement = about_measurement(a.property);
    if (a_measurement != about_measurement(b.property)) return !a_measurement;
    return a.severity > b.severity;
  });
  return found;
}

}  // namespace quartz::analysis
