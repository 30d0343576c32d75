// Why `quartz predict`'s answers may be off, for its text, its JSON and the viewer alike.
#pragma once

#include <string>
#include <vector>

#include "analysis/prediction.h"

namespace quartz::analysis {

// How far outside its range the recorded time may fall before that is a caution: the
// run-to-run noise of a program's elapsed time (unequal_workers pinned: medians of three
// runs 0.651 and 0.663 s).
inline constexpr double kOutsideRangeNoise = 0.01;

// Why the predictions may be off, most serious first (empty: nothing known against them):
// a recording made on a busy machine (with its replay on the capacity left, which explains
// what follows), the replay of the recording more than 10% from the recorded time, the
// recorded time outside the range its configuration replays to, a critical path mostly off
// the processor, a changed procedure whose entry the budget turned off, a trace that lost
// events or ends early, waits replayed without their recorded wake-up.
struct TrustWarning {
  std::string reason;  // "replay_error", "busy_machine", "dropped_events", ...
  std::string text;
};
std::vector<TrustWarning> trust_warnings(const Predictions& p);

}  // namespace quartz::analysis
