// The properties of threads that waited while processors were idle: ready for a processor
// (oversubscription; processors taken by other processes) or blocked in the kernel.
#include "analysis/diagnosis_properties.h"
#include "analysis/text_format.h"

namespace quartz::analysis::diagnosis {

using text::seconds;

// Ready time: runnable but not running. Oversubscription is the ready time while more of
// the program's threads were runnable than there are processors: it costs elapsed time
// only through the processors it leaves idle at other moments (a preempted holder stalls
// its waiters), so its severity is at most the idle share. Ready with no more runnable
// than processors is a processor being woken or taken by other processes: capacity lost
// to the program, a finding about the measurement, at most what other processes took
// where that was measured (oversubscribed's threads queued on one processor while the
// other idled read 19.6% "taken" of which other processes took 0.2%).
void ready_time(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const double ready_s = view.program_totals.state_s[capture::kReady];
  if (!(ready_s > 0)) return;
  const double oversubscribed_s = oversubscribed_ready_s(view);
  const double capacity = view.processors * view.elapsed_s;
  const double runnable = view.program_totals.mean_runnable[capture::kReady];
  const std::string evidence =
      " of thread-time ready (runnable, not running), with " + text::format("%.1f", runnable) +
      " of its threads runnable on average on " + std::to_string(view.processors) + " processors";
  if (oversubscribed_s > 0) {
    Finding f;
    f.property = Property::oversubscription;
    f.severity = clamp01(std::min(oversubscribed_s, idle_capacity_s(view)) / capacity);
    f.confidence = confidence(view, oversubscribed_s, overhead);
    f.subject = "the program";
    f.evidence = seconds(oversubscribed_s) + " (of " + seconds(ready_s) + ")" + evidence +
                 ", more than processors";
    f.advice = "run no more busy threads than processors (a pool sized to them)";
    out.push_back(f);
  }
  const double taken_s = ready_s - oversubscribed_s;
  if (taken_s > 0) {
    Finding f;
    f.property = Property::other_processes;
    const double others_s = view.quality.other_cpu_s ? taken_capacity_s(view) : taken_s;
    f.severity = clamp01(std::min(taken_s, others_s) / capacity);
    f.confidence = confidence(view, taken_s, overhead);
    f.subject = "the program";
    f.evidence = seconds(taken_s) + evidence +
                 ", no more than processors: processors being "
                 "woken, or taken by other processes";
    if (view.quality.other_cpu_s) {
      f.evidence += "; other processes took " + seconds(*view.quality.other_cpu_s) + " (" +
                    text::percent(*view.quality.other_cpu_s, capacity) + " of its processors)";
    }
    f.advice =
        "if other processes took processors: profile on a quieter machine, or reserve "
        "processors for the program";
    out.push_back(f);
  }
}

void leave_oversubscription_the_rest(const ProfileView& view, std::vector<Finding>& all) {
  const double capacity = view.processors * view.elapsed_s;
  double claimed_s = 0;
  for (const Finding& f : all) {
    if (f.property == Property::serial_bottleneck || f.property == Property::kernel_blocking) {
      claimed_s += f.severity * capacity;
    }
  }
  const double rest = std::max(0.0, idle_capacity_s(view) - claimed_s) / capacity;
  for (Finding& f : all) {
    if (f.property == Property::oversubscription) f.severity = std::min(f.severity, rest);
  }
}

// Blocking in the kernel not overlapped with work: the processor capacity the program
// left idle, in the share its blocked threads were blocked in the kernel (I/O, sleep)
// rather than waiting for one another, and no more than they were blocked there with a
// processor idle (kernel_blocked_idle_s).
void kernel_blocking(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  if (view.parallelism_s.empty()) return;
  const double idle_s = kernel_blocked_idle_s(view);
  const double in_kernel_s = blocked_in_kernel_s(view);
  const LongestWait& most = view.longest_wait;  // the procedure that waited longest
  Finding f;
  f.property = Property::kernel_blocking;
  f.severity = clamp01(idle_s / (view.processors * view.elapsed_s));
  f.confidence = confidence(view, idle_s, overhead);
  f.subject = most.wait_s > 0 ? most.name : "the program";
  f.evidence =
      seconds(idle_s) + " of processor time left idle while threads were blocked in " +
      "the kernel, of " + seconds(in_kernel_s) + " of thread-time blocked there (" +
      text::percent(view.parallelism_s[0], view.elapsed_s) + " of elapsed with no processor busy)" +
      (most.wait_s > 0 ? "; " + seconds(most.wait_s) + " of thread-time blocked in it" : "");
  f.advice =
      "overlap the waits (I/O, sleeps) with work: asynchronous I/O, or more threads "
      "to wait while others compute";
  out.push_back(f);
}

}  // namespace quartz::analysis::diagnosis
