// The report's tables as CSV (RFC 4180): one header line, then one row per record, numbers
// exactly as `quartz report --json` gives them (seconds, shortest round-trip form).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "analysis/profile_view.h"

namespace quartz::exports {

// The tables, in the report's order: parallelism, procedures, call_graph, locks, threads,
// contexts.
const std::vector<std::string>& csv_tables();

// Writes one table; throws std::invalid_argument for a name not in csv_tables().
void write_csv(std::ostream& out, const analysis::ProfileView& view, const std::string& table);

}  // namespace quartz::exports
