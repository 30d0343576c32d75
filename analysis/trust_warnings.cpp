#include "analysis/trust_warnings.h"

#include <cmath>

#include "analysis/text_format.h"

namespace quartz::analysis {
namespace {

// A critical path more than this off the processor bounds every answer by time the replay
// cannot change (I/O, sleep, a wait Quartz does not trace).
constexpr double kPathOffProcessor = 0.5;

}  // namespace

std::vector<TrustWarning> trust_warnings(const Predictions& p) {
  std::vector<TrustWarning> out;
  const auto percent = [](double share) { return std::to_string(std::lround(100 * share)) + "%"; };
  const double error = p.observed_s > 0 ? (p.recorded_s - p.observed_s) / p.observed_s : 0;
  const bool busy = recorded_busy(p);
  // A busy machine first: it explains the replay's error and the range's miss below.
  if (busy) {
    std::string loaded;
    if (p.loaded) {
      loaded = "; with the " + text::format("%.2f", p.loaded->processors) +
               " processors they left, the recording replays to " +
               text::seconds(p.loaded->predicted_s) + " (" +
               text::change(p.loaded->predicted_s, p.observed_s) + ")";
    }
    out.push_back({"busy_machine", "other processes took " + percent(*p.other_share) +
                                       " of the processors while this was recorded" + loaded +
                                       "; the other predictions are for the program alone on "
                                       "an idle machine"});
  }
  if (std::fabs(error) > 0.10) {
    out.push_back(
        {"replay_error", "the replay of the recording is " + percent(std::fabs(error)) +
                             (error < 0 ? " short of" : " over") +
                             " the recorded time: every prediction carries an error of that order" +
                             (busy ? " (the machine was busy: above)" : "")});
  }
  const PredictionRange& r = p.recorded_range;
  const double miss = p.observed_s <= 0         ? 0
                      : p.observed_s < r.low_s  ? 1 - p.observed_s / r.low_s
                      : p.observed_s > r.high_s ? p.observed_s / r.high_s - 1
                                                : 0;
  if (p.models.size() > 1 && miss > kOutsideRangeNoise) {
    out.push_back({"outside_range", "the recorded time is " + percent(miss) +
                                        (p.observed_s < r.low_s ? " below" : " above") +
                                        " the range its own configuration replays to: the "
                                        "other ranges can miss by as much"});
  }
  const CriticalPath& path = p.critical_path;
  if (path.length_s > 0 && path.delay_s > kPathOffProcessor * path.length_s) {
    out.push_back({"path_off_processor",
                   percent(path.delay_s / path.length_s) + " of the critical path (" +
                       text::seconds(path.delay_s) +
                       ") is time off the processor: I/O, sleep, or a wait Quartz does not "
                       "trace (a pipe, a signalfd, the program's own futex); every replay keeps "
                       "it as recorded, so no answer goes below it"});
  }
  for (const ProcedurePrediction& c : p.procedures) {
    if (!c.turned_off_s) continue;
    out.push_back({"procedure_turned_off",
                   c.procedure + "'s entry was turned off by the overhead budget " +
                       text::seconds(*c.turned_off_s) +
                       " into the run: its time since is its callers' in the trace, so the "
                       "change leaves that out; record with --procedures '" +
                       c.procedure + "' (or --budget 0) to ask about it"});
  }
  if (p.quality.dropped) {
    out.push_back({"dropped_events", "the trace lost " + std::to_string(p.quality.dropped) +
                                         " events: the threads that lost them are replayed "
                                         "without them"});
  }
  if (!p.quality.complete) {
    out.push_back({"incomplete_trace",
                   "the trace ends early (the run did not finish writing "
                   "it): the replay stops where it does"});
  }
  if (p.quality.forced_waits || p.quality.unpaired_waits) {
    out.push_back(
        {"unmatched_waits", std::to_string(p.quality.forced_waits + p.quality.unpaired_waits) +
                                " waits had no recorded wake-up the replay could follow and are "
                                "replayed as the delays they took"});
  }
  return out;
}

}  // namespace quartz::analysis
