// A scaling series (analysis/scaling.h) as text and JSON: `quartz scale`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>

#include "analysis/scaling.h"

namespace quartz::analysis {

// `available`: the processors this machine lets the program use (the notes say what the
// series cannot tell on it); `top`: regions listed.
void print_scaling(std::ostream& out, const Scaling& s, uint32_t available, size_t top);
nlohmann::json scaling_json(const Scaling& s, uint32_t available);

}  // namespace quartz::analysis
