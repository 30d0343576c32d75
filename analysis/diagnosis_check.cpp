// Each finding's claim against the figure it explains. A claim is in seconds of elapsed time
// (severity × E) or of processor time (severity × P × E), as its property's severity is
// defined (diagnosis_*.cpp); the figures are the view's, as the report shows them.
#include "analysis/diagnosis_check.h"

#include <algorithm>

#include "analysis/diagnosis_properties.h"
#include "analysis/text_format.h"

namespace quartz::analysis {
namespace {

// The largest figure of the rows named `name` (0 when none is).
template <typename Row, typename Figure>
double largest(const std::vector<Row>& rows, const std::string& name, Figure figure) {
  double most = 0;
  for (const Row& row : rows) {
    if (row.name == name) most = std::max(most, figure(row));
  }
  return most;
}

struct Bound {
  double claimed_s = 0;  // what the finding says it explains
  double at_most_s = 0;  // the figure it explains
  std::string figure;    // which figure that is
};

Bound bound_of(const ProfileView& view, const Finding& f) {
  const double p = view.processors, elapsed = view.elapsed_s, share = f.severity;
  const Totals& program = view.program_totals;
  switch (f.property) {
    case Property::serial_bottleneck:
      return {share * elapsed,
              largest(view.procedures, f.subject,
                      [](const ProcedureRow& r) {
                        return r.totals.histogram_self_s.size() > 1 ? r.totals.histogram_self_s[1]
                                                                    : 0.0;
                      }) *
                  (1 - 1 / p),
              "its own time with one processor busy, less 1/P"};
    case Property::lock_contention:
      return {
          share * elapsed,
          largest(view.locks, f.subject, [](const LockRow& l) { return l.totals.normalized_s; }),
          "the object's normalized time"};
    case Property::spin_waste: {
      const double spinning = program.state_s[capture::kSpinning];
      const double held = largest(view.locks, f.subject, [&](const LockRow& l) {
        return l.kind == capture::kSpinlock ? p * l.totals.normalized_s : 0.0;
      });
      return {share * p * elapsed, std::max(spinning, held),
              "thread-time spinning (or P × the spin lock's normalized time)"};
    }
    case Property::load_imbalance: {
      double most = largest(view.locks, f.subject, [](const LockRow& l) { return l.wait_s / 2; });
      for (const ThreadRow& t : view.threads) most = std::max(most, t.busy_s);
      return {share * elapsed, most, "a thread's busy time (or half the waits at the barrier)"};
    }
    case Property::starvation:
      return {share * p * elapsed, view.starvation.total_s(), "starved processor time"};
    case Property::oversubscription:
      return {share * p * elapsed, diagnosis::oversubscribed_ready_s(view),
              "ready thread-time with more threads runnable than processors"};
    case Property::other_processes:
      return {share * p * elapsed,
              view.quality.other_cpu_s ? diagnosis::taken_capacity_s(view)
                                       : program.state_s[capture::kReady],
              "ready thread-time, and what other processes took"};
    case Property::kernel_blocking:
      return {share * p * elapsed,
              std::min(diagnosis::blocked_in_kernel_s(view), diagnosis::blocked_while_idle_s(view)),
              "thread-time blocked in the kernel while fewer threads were runnable than "
              "processors"};
    case Property::profiler_intrusion:
      break;
  }
  return {share, 1, "the whole run"};
}

bool above(double claimed, double at_most) {
  return claimed > at_most * (1 + 1e-9) + 1e-9;
}

}  // namespace

std::vector<std::string> finding_contradictions(const ProfileView& view,
                                                const std::vector<Finding>& findings) {
  std::vector<std::string> lines;
  if (!(view.elapsed_s > 0)) return lines;
  // The processor time the findings that explain idleness claim, together: at most what
  // the program did not work (each idle second is one property's; a serial bottleneck's
  // other processors may be spinning, as libomp's idle threads do).
  double idle_claimed = 0;
  for (const Finding& f : findings) {
    const Bound b = bound_of(view, f);
    if (above(b.claimed_s, b.at_most_s)) {
      lines.push_back("finding " + property_name(f.property) + " of " + f.subject + ": claims " +
                      text::seconds(b.claimed_s) + ", more than " + b.figure + " (" +
                      text::seconds(b.at_most_s) + ")");
    }
    if (f.property == Property::serial_bottleneck || f.property == Property::starvation ||
        f.property == Property::oversubscription || f.property == Property::kernel_blocking) {
      idle_claimed += f.severity * view.processors * view.elapsed_s;
    }
  }
  const Totals& program = view.program_totals;
  const double not_worked = view.processors * view.elapsed_s - program.processor_s;
  if (above(idle_claimed, std::max(0.0, not_worked))) {
    lines.push_back("findings claim " + text::seconds(idle_claimed) +
                    " of idle processor time, more than the program did not work (" +
                    text::seconds(not_worked) + ")");
  }
  return lines;
}

}  // namespace quartz::analysis
