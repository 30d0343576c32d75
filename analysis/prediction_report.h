// `quartz predict` output: the predictions as text for terminals (prediction_json.h: as
// JSON).
#pragma once

#include <ostream>
#include <string>

#include "analysis/prediction.h"

namespace quartz::analysis {

void print_predictions(std::ostream& out, const Predictions& p, const std::string& run_label);
// A few lines for `quartz report`: the question and the answers.
void print_what_if(std::ostream& out, const std::string& made, const std::string& question,
                   const Predictions& p);

}  // namespace quartz::analysis
