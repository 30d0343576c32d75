// Diagnosis: performance properties of a run (JavaPSL's sense: a property holds with a
// severity and a confidence), ranked by the share of the elapsed time each explains, with
// the evidence and the tuning advice the Quartz paper gives for it. Each property's rule is
// defined once, in the file diagnosis_properties.h names, and in docs/design.md "Diagnosis";
// `quartz diagnose`, the top of `quartz report` and the viewer use them.
#pragma once

#include <string>
#include <vector>

#include "analysis/profile_view.h"

namespace quartz::analysis {

enum class Property {
  serial_bottleneck,   // one processor busy while the others idle, in one procedure
  lock_contention,     // threads wait for an object, its holders serialise them
  spin_waste,          // spinning while more threads are runnable than processors
  load_imbalance,      // threads of one routine busy for very different times
  starvation,          // processors idle for want of threads at work: start-up, wind-down
  oversubscription,    // the program's own runnable threads exceed the processors
  other_processes,     // ready while fewer of ours were runnable than processors
  kernel_blocking,     // no processor busy: I/O or sleep not overlapped with work
  profiler_intrusion,  // the hooks' and the sampler's cost, too large to ignore
};

struct Finding {
  Property property = Property::serial_bottleneck;
  double severity = 0;    // share of the elapsed time it explains, 0..1
  double confidence = 0;  // 0..1: samples behind it, torn stacks, dilation, run ended early
  std::string subject;    // the procedure, object or thread; "the program" for the whole
  std::string location;   // its source location, when a procedure
  std::string evidence;   // the figures that show it, one line
  std::string advice;     // what to do about it
};

std::string property_name(Property property);
// Properties of the measurement rather than of the program (other processes, the
// profiler's own cost): shown apart, after the program's findings.
bool about_measurement(Property property);
// Threads of one routine share a name but for a number ("share_0", "worker 3", "#2"): the
// name without it. A load-imbalance finding's subject is "N threads ROUTINE".
std::string routine_of(const std::string& thread_name);

// Findings of at least `min_severity`: the program's, most severe first, then the
// measurement's.
std::vector<Finding> diagnose(const ProfileView& view, double min_severity = 0.01);

}  // namespace quartz::analysis
