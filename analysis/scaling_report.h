// A scaling series (analysis/scaling.h) as text and JSON: `quartz scale`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/scaling.h"

namespace quartz::analysis {

// `available`: the processors this machine lets the program use (the notes say what the
// series cannot tell on it); `top`: regions listed.
void print_scaling(std::ostream& out, const Scaling& s, uint32_t available, size_t top);
nlohmann::json scaling_json(const Scaling& s, uint32_t available);
// What the series cannot tell on a machine with `available` processors (no run on one,
// too few points for non-scalability, not measured up to all of them).
std::vector<std::string> scaling_notes(const Scaling& s, uint32_t available);

}  // namespace quartz::analysis
