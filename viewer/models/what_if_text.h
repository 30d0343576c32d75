// The What-ifs view's sentences: what to do when there is nothing to show, and the model's
// check and the critical path of a prediction in words, as `quartz predict` prints them.
// Numbers are the prediction's; the only arithmetic is a change relative to a reference.
#pragma once

#include <QString>
#include <optional>

#include "analysis/prediction.h"
#include "viewer/loading/run_data.h"

namespace quartz::viewer {

// (value - reference) / reference; nothing when the reference is not positive.
std::optional<double> change_of(double value, double reference);
// As `quartz predict` writes it: "+98.3%", "-13.9%", or "-" without a reference.
QString signed_change(double value, double reference);

// One sentence saying why the What-ifs view has nothing to show for `run` and what to do
// (`quartz run --trace`, `quartz import`, `quartz predict`); empty when there are stored
// predictions to show.
QString what_ifs_missing(const RunData* run);

// "Replayed as recorded 600.1-640.0 ms under 4 scheduler models, 616.02 ms under the most
// likely; recorded 715.56 ms on 2 processors, outside the range (-13.9% from the most
// likely: the model's error on what it saw)."
QString check_sentence(const analysis::Predictions& p);
// "Critical path 613.92 ms, 85.8% of the recorded elapsed time: 607.37 ms on a processor,
// 3.51 ms off it (I/O, sleep)."
QString critical_path_sentence(const analysis::Predictions& p);
// Warnings about the trace (it ends early, it lost events); empty when there are none.
QString trace_warning(const analysis::Predictions& p);

}  // namespace quartz::viewer
