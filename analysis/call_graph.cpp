#include "analysis/call_graph.h"

#include <tsl/robin_set.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>

#include "analysis/context_lookups.h"
#include "analysis/profile_view.h"

namespace quartz::analysis {

using namespace quartz::profile;

namespace {

// The root (0) and the first `limit` procedures by rank with a child context, or none (no
// limit: every procedure). `Context`: the run's (ContextInfo) or the view's (ContextRow).
template <typename Context>
std::optional<tsl::robin_set<uint64_t>> parents_shown(const std::vector<Context>& contexts,
                                                      const std::vector<ProcedureRow>& procedures,
                                                      size_t limit) {
  if (limit >= procedures.size()) return std::nullopt;
  tsl::robin_set<uint64_t> parents;
  for (const Context& c : contexts) {
    if (c.parent == capture::kNoParent) continue;
    const Context& p = contexts[c.parent];
    if (p.kind == capture::kProcedure) parents.insert(p.address);
  }
  tsl::robin_set<uint64_t> shown{0};
  for (size_t i = 0; i < procedures.size() && shown.size() <= limit; ++i) {
    if (parents.count(procedures[i].address)) shown.insert(procedures[i].address);
  }
  return shown;
}

// Keeps the pairs whose parent is among `shown` (none: every pair).
CallGraphFilter parents_among(const std::optional<tsl::robin_set<uint64_t>>& shown) {
  if (!shown) return {};
  return [&shown](uint64_t parent, uint64_t, uint32_t) { return shown->count(parent) > 0; };
}

// The call graph from the run's contexts (ContextInfo) or the view's rows (ContextRow),
// whichever the analysis holds. `from` tells what a context's row is made of:
// inclusive(i), its normalized time with its subtree; name_index(i), its name in
// ProfileView::names; calls(i, parent), the calls to it from its parent's procedure.
template <typename Context, typename From>
CallGraph child_rows(const std::vector<Context>& contexts, const From& from, double root_total,
                     const std::vector<ProcedureRow>& procedures, const CallGraphFilter& keep) {
  const size_t n = contexts.size();
  // Each context's inclusive time under its parent's procedure, summed by (parent, child,
  // kind) once sorted, in the contexts' order: one array, not a hash table of hash tables
  // (a big run has about as many of these as contexts).
  struct Share {
    uint64_t parent, child;
    uint32_t kind, context;
    double time;
  };
  std::vector<Share> shares;
  if (!keep) shares.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Context& c = contexts[i];
    uint64_t parent_address = 0;
    if (c.parent != capture::kNoParent) {
      const Context& p = contexts[c.parent];
      if (p.kind != capture::kProcedure) continue;  // a child of a lock belongs to the lock
      parent_address = p.address;
    }
    if (keep && !keep(parent_address, c.address, c.kind)) continue;
    shares.push_back(
        {parent_address, c.address, c.kind, static_cast<uint32_t>(i), from.inclusive(i)});
  }
  std::sort(shares.begin(), shares.end(), [](const Share& a, const Share& b) {
    return std::tie(a.parent, a.child, a.kind, a.context) <
           std::tie(b.parent, b.child, b.kind, b.context);
  });

  std::unordered_map<uint64_t, const ProcedureRow*> by_address;
  for (const ProcedureRow& p : procedures) by_address[p.address] = &p;
  CallGraph result;
  for (size_t at = 0; at < shares.size();) {
    const uint64_t parent = shares[at].parent;
    double total = 0;
    double self = 0;
    if (parent == 0) {
      total = root_total;
    } else if (by_address.count(parent)) {
      total = by_address[parent]->totals.normalized_s;
      self = by_address[parent]->totals.normalized_self_s;
    }
    std::vector<ChildRow>& rows = result[parent];
    size_t distinct = 1;  // the parent's "self"
    for (size_t i = at; i < shares.size() && shares[i].parent == parent; ++i) {
      distinct +=
          i == at || shares[i].child != shares[i - 1].child || shares[i].kind != shares[i - 1].kind;
    }
    rows.reserve(distinct);
    while (at < shares.size() && shares[at].parent == parent) {
      ChildRow row;
      row.address = shares[at].child;
      row.kind = shares[at].kind;
      row.name_index = from.name_index(shares[at].context);
      if (row.kind == capture::kProcedure) row.calls = from.calls(shares[at].context, parent);
      for (; at < shares.size() && shares[at].parent == parent && shares[at].child == row.address &&
             shares[at].kind == row.kind;
           ++at) {
        row.normalized_s += shares[at].time;
      }
      row.share = share(row.normalized_s, total).value_or(0);
      rows.push_back(row);
    }
    // Ties by address and kind: the same order on every run.
    std::sort(rows.begin(), rows.end(), [](const ChildRow& a, const ChildRow& b) {
      if (a.normalized_s != b.normalized_s) return a.normalized_s > b.normalized_s;
      return a.address != b.address ? a.address < b.address : a.kind < b.kind;
    });
    if (parent != 0) {
      ChildRow row;
      row.name_index = ChildRow::kSelf;
      row.address = parent;
      row.normalized_s = self;
      row.share = share(self, total).value_or(0);
      rows.push_back(row);
    }
  }
  return result;
}

// The call graph from the view's rows, which hold all a child row is made of: a context's
// calls are those from the procedure above it, its parent's here (a child of a lock is
// the lock's).
CallGraph child_rows_of_view(const ProfileView& view, const CallGraphFilter& keep) {
  struct FromRows {
    const std::vector<ContextRow>& rows;
    double inclusive(size_t i) const { return rows[i].normalized_s; }
    uint32_t name_index(size_t i) const { return rows[i].name_index; }
    uint64_t calls(size_t i, uint64_t) const { return rows[i].calls; }
  };
  return child_rows(view.contexts, FromRows{view.contexts}, view.program_totals.normalized_self_s,
                    view.procedures, keep);
}

}  // namespace

CallGraph call_graph(const ProfileView& view, const CallGraphFilter& keep) {
  return child_rows_of_view(view, keep);
}

CallGraph call_graph_of_rows(const ProfileView& view, size_t parents) {
  const std::optional<tsl::robin_set<uint64_t>> shown =
      parents_shown(view.contexts, view.procedures, parents);
  return child_rows_of_view(view, parents_among(shown));
}

CallGraph call_graph_of_run(const Run& run, ProfileView& view, size_t parents) {
  const auto sum = [](std::span<const double> v) {
    return std::accumulate(v.begin(), v.end(), 0.0);
  };
  ViewNames names(run, view.names);
  std::vector<double> inclusive(run.contexts.size(), 0);
  for (size_t i = inclusive.size(); i-- > 0;) {
    inclusive[i] += sum(run.normalized_of(i));
    const uint32_t parent = run.contexts[i].parent;
    if (parent != capture::kNoParent) inclusive[parent] += inclusive[i];
  }
  struct From {
    const Run& run;
    const std::vector<double>& inclusive_s;
    ViewNames& names;
    const EdgeCalls edge_calls;
    double inclusive(size_t i) const { return inclusive_s[i]; }
    uint32_t name_index(size_t i) const {
      return names.index(run.contexts[i].address, run.contexts[i].kind);
    }
    uint64_t calls(size_t i, uint64_t parent) const {
      auto it = edge_calls.find({parent, run.contexts[i].address});
      return it == edge_calls.end() ? 0 : it->second;
    }
  };
  const std::optional<tsl::robin_set<uint64_t>> shown =
      parents_shown(run.contexts, view.procedures, parents);
  return child_rows(run.contexts, From{run, inclusive, names, edge_calls_of(run)},
                    sum(run.program.normalized_self), view.procedures, parents_among(shown));
}

}  // namespace quartz::analysis
