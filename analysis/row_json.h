// Each row of a profile as JSON, defined once for every command that prints it: `quartz
// report --json` (totals, procedures with their children, locks, threads, contexts,
// unpatched entries, limits reached), `quartz diagnose --json` and `quartz compare --json`
// (findings, changes). prediction_json.h does the same for `quartz predict`.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <vector>

#include "analysis/comparison.h"
#include "analysis/diagnosis.h"
#include "analysis/profile_view.h"

namespace quartz::analysis {

nlohmann::json totals_json(const Totals& t);
// The procedure's totals and fields, and its children in `view`'s call graph.
nlohmann::json procedure_json(const ProcedureRow& p, const ProfileView& view);
nlohmann::json lock_json(const LockRow& l);
nlohmann::json thread_json(const ThreadRow& t);
// The context's fields, its name and histograms from `view`.
nlohmann::json context_json(const ContextRow& c, const ProfileView& view);
nlohmann::json unpatched_json(const UnpatchedProcedure& u);
nlohmann::json limit_json(const LimitReached& l);

nlohmann::json finding_json(const Finding& f);
nlohmann::json findings_json(const std::vector<Finding>& findings);  // an array of them
nlohmann::json change_json(const Change& c);
nlohmann::json changes_json(const std::vector<Change>& changes);  // an array of them

}  // namespace quartz::analysis
