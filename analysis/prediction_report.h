// `quartz predict` output: the predictions as text for terminals and as JSON (also how
// they are stored with the run, and read back for `quartz report` and the viewer).
#pragma once

#include <ostream>
#include <string>

#include "analysis/prediction.h"

namespace quartz::analysis {

void print_predictions(std::ostream& out, const Predictions& p, const std::string& run_label);
// A few lines for `quartz report`: the question and the answers.
void print_what_if(std::ostream& out, const std::string& made, const std::string& question,
                   const Predictions& p);
std::string predictions_json(const Predictions& p);
// Throws PredictionError when `json` is not what predictions_json wrote.
Predictions predictions_from_json(const std::string& json);

}  // namespace quartz::analysis
