// `quartz predict`'s answers as JSON, and back: its --json output, how they are stored with
// the run, and how `quartz report` and the viewer read them. Each row type's fields are
// written and read in one place.
#pragma once

#include <string>

#include "analysis/prediction.h"

namespace quartz::analysis {

std::string predictions_json(const Predictions& p);
// Throws PredictionError when `json` is not what predictions_json wrote.
Predictions predictions_from_json(const std::string& json);

}  // namespace quartz::analysis
