// The call graph: each procedure's normalized time divided among its children (and its
// "self"), summed from the calling-context tree: a child's share is its time with its
// subtree in the contexts directly below the procedure's contexts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

#include "analysis/table_rows.h"
#include "profile/run.h"

namespace quartz::analysis {

struct ProfileView;

struct ChildRow {
  static constexpr uint32_t kSelf = ~uint32_t{0};  // name_index of the parent's own time
  uint64_t address = 0;
  uint32_t kind = capture::kProcedure;
  uint32_t name_index = 0;  // in ProfileView::names (name_of), or kSelf: "self"
  double normalized_s = 0;
  double share = 0;  // of the parent's normalized time
  uint64_t calls = 0;
  bool is_self() const { return name_index == kSelf; }
};

// The children by the procedure's address (0: the root), by normalized time, descending,
// "self" last.
using CallGraph = std::map<uint64_t, std::vector<ChildRow>>;
// Which (parent procedure, child, child's kind) pairs of a call graph to sum.
using CallGraphFilter = std::function<bool(uint64_t parent, uint64_t child, uint32_t kind)>;

// The call graph summed from a view's rows, of the pairs `keep` lets through (every pair
// when empty): the rows ProfileView::children holds, for a view made without it. The viewer
// makes its view so and sums one procedure's callers or callees as it shows them: the
// whole call graph of a run of millions of contexts takes seconds and a third of a
// gigabyte to sum.
CallGraph call_graph(const ProfileView& view, const CallGraphFilter& keep = {});

// What analyze() holds in ProfileView::children: the parents are the root and the first
// `parents` procedures by rank that have children. From the view's context rows:
CallGraph call_graph_of_rows(const ProfileView& view, size_t parents);
// ... or, for a view made without them, from the run's contexts (names into view.names).
CallGraph call_graph_of_run(const profile::Run& run, ProfileView& view, size_t parents);

}  // namespace quartz::analysis
