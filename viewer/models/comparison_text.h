// A comparison (analysis::Comparison) in words, as `quartz compare` says it: a change
// relative to A ("+20.8%", "new"), the elapsed time's change with its noise bound, and what
// the bound is made of.
#pragma once

#include <QString>

#include "analysis/comparison.h"

namespace quartz::viewer {

QString relative_change(const analysis::Change& change);
// "Elapsed 1.200 s → 1.450 s, +20.8% (noise 12.00 ms): beyond noise"
QString elapsed_sentence(const analysis::Comparison& c);
QString noise_sentence(const analysis::Comparison& c);

}  // namespace quartz::viewer
