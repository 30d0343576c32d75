// Procedure changes: a procedure made faster or free, or its time moved to the thread
// its next signal or post wakes.
#include "analysis/simulation_state.h"

namespace quartz::analysis {

namespace {

bool is_signal(trace::Type type) {
  return type == trace::Type::cond_signal || type == trace::Type::cond_broadcast ||
         type == trace::Type::sem_post;
}

}  // namespace

// The part of a work step's time spent in the procedure (cached per attribution).
double Simulation::State::procedure_share(const Step& s) {
  if (s.attribution >= attributions.size()) return 0;
  if (share_of.size() <= s.attribution) share_of.resize(attributions.size(), -1);
  double& share = share_of[s.attribution];
  if (share < 0) {
    share = 0;
    for (const auto& [c, weight] : attributions[s.attribution]) {
      if (c < config.in_procedure.size() && config.in_procedure[c]) share += weight;
    }
  }
  return share;
}

// Whether a signal or post follows in the thread's log (migration moves the procedure's
// time to whoever it wakes); false when the log ended without one. Sets `starved` when
// the answer is not read yet.
bool Simulation::State::signal_follows(SimThread& t, const StepLog& log) {
  if (!t.next_signal_known || t.next_signal < t.cursor) {
    if (t.scan < t.cursor) t.scan = t.cursor;
    t.next_signal_known = false;
    while (t.scan < log.end()) {
      const Step& s = log.at(t.scan);
      if (s.kind == Step::sync && is_signal(s.type)) {
        t.next_signal = t.scan;
        t.next_signal_known = true;
        break;
      }
      ++t.scan;
    }
    if (!t.next_signal_known) {
      if (!log.ended) {
        starved = true;
        return false;
      }
      t.next_signal = ~uint64_t{0};
      t.next_signal_known = true;
    }
  }
  return t.next_signal != ~uint64_t{0};
}

}  // namespace quartz::analysis
