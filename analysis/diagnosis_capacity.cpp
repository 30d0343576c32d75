// Where the processors' time (P × elapsed) went, as the diagnosis's rules divide it: used
// by the program (working or spinning), taken by other processes, starved (no thread at
// work to run), idle (threads at work blocked or ready). Each idle second is one
// property's: starvation's, or blocking's and oversubscription's.
#include "analysis/diagnosis_properties.h"

namespace quartz::analysis::diagnosis {

double kernel_share_of_blocking(const ProfileView& view) {
  const double blocked = view.program_totals.state_s[capture::kBlocked];
  if (!(blocked > 0)) return 0;
  return clamp01(blocked_in_kernel_s(view) / blocked);
}

double blocked_in_kernel_s(const ProfileView& view) {
  double on_objects = 0;
  for (const LockRow& lock : view.locks) on_objects += lock.wait_blocked_s;
  return std::max(0.0, view.program_totals.state_s[capture::kBlocked] - on_objects);
}

double blocked_while_idle_s(const ProfileView& view) {
  if (capture::kBlocked >= view.program_totals.runnable_s.size()) {
    return view.program_totals.state_s[capture::kBlocked];  // not measured: all of it
  }
  const std::vector<double>& by_runnable = view.program_totals.runnable_s[capture::kBlocked];
  double sum = 0;
  for (size_t k = 0; k < by_runnable.size() && k < view.processors; ++k) sum += by_runnable[k];
  return sum;
}

double kernel_blocked_idle_s(const ProfileView& view) {
  return std::min({idle_capacity_s(view) * kernel_share_of_blocking(view),
                   blocked_in_kernel_s(view), blocked_while_idle_s(view)});
}

double oversubscribed_ready_s(const ProfileView& view) {
  double ready_s = 0;
  if (capture::kReady < view.program_totals.runnable_s.size()) {
    const std::vector<double>& by_runnable = view.program_totals.runnable_s[capture::kReady];
    for (size_t k = view.processors + 1; k < by_runnable.size(); ++k) ready_s += by_runnable[k];
  }
  return ready_s;
}

// What other processes took (measured), up to the threads' ready time: what they ran on
// processors the program left idle anyway took nothing from it (stages: 90 ms of `quartz
// run`'s own and the kernel's, during its starvation). Ready time with more threads
// runnable than processors counts too: a process that holds one of two processors leaves
// the program one, and its four threads then wait beyond two.
double taken_capacity_s(const ProfileView& view) {
  if (!view.quality.other_cpu_s) return 0;
  const double ready_s = view.program_totals.state_s[capture::kReady];
  return std::clamp(*view.quality.other_cpu_s, 0.0, std::max(0.0, ready_s));
}

// The hooks' cost (taken out of processor time) is the profiler's use of the processors,
// not idle: blocking and oversubscription cannot explain it.
double unused_capacity_s(const ProfileView& view) {
  const double used = view.program_totals.processor_s +
                      view.program_totals.state_s[capture::kSpinning] + taken_capacity_s(view) +
                      view.quality.dilation_removed_s;
  return std::max(0.0, view.processors * view.elapsed_s - used);
}

// The sampler's count (profile_view.h Starvation), within the unused capacity.
double starved_capacity_s(const ProfileView& view) {
  return std::min(view.starvation.total_s(), unused_capacity_s(view));
}

// Blocking and oversubscription can only explain these; the others had no thread to run.
double idle_capacity_s(const ProfileView& view) {
  return std::max(0.0, unused_capacity_s(view) - starved_capacity_s(view));
}

}  // namespace quartz::analysis::diagnosis
