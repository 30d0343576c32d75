// `quartz predict --cores K`: the search for the groupings of the run's threads onto K
// processors that replay fastest. Every grouping at once when there are few, in the first
// pass over the trace; else a local search from a balanced start, one round a pass.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "analysis/grouping.h"
#include "analysis/model_replays.h"
#include "analysis/prediction.h"

namespace quartz::analysis {

// One --cores K under way.
struct SearchState {
  GroupingSearch report;
  std::vector<Grouping> candidates;                // asked in the first pass
  size_t shared = 0, first_candidate = 0;          // their questions there
  std::vector<std::pair<double, Grouping>> tried;  // the most likely figure (ns) of each
};

// Asks the first pass about each search's candidates and its threads all sharing the K
// processors.
std::vector<SearchState> start_searches(const profile::Run& run, const PredictionRequest& request,
                                        ModelReplays& first);
// What the first pass answered for `s`.
void take_first_answers(const ModelReplays& first, const ReplayPass& pass, SearchState& s);
// A search not exhaustive: moves one thread at a time while that helps, a pass a round.
void search_locally(const std::vector<SchedulerModel>& models, TracePasses& passes, SearchState& s);
// The `request.best` groupings of each search, with their ranges: those the first pass did
// not replay under every model are, in one more pass.
std::vector<GroupingSearch> list_best_groupings(const profile::Run& run,
                                                const PredictionRequest& request,
                                                const ModelReplays& first, const ReplayPass& pass,
                                                TracePasses& passes,
                                                std::vector<SearchState>& searches);

}  // namespace quartz::analysis
