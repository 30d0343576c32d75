#include "analysis/system_frames.h"

#include <algorithm>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "profile/system_code.h"

namespace quartz::analysis {

using namespace quartz::profile;

namespace {

// Time that was spent on the record's behalf (in a system callee) becomes its own.
void move_to_self(FullRecord& record, const ContextRecord& moved) {
  auto move = [](std::vector<double>& self, std::vector<double>& behalf,
                 const std::vector<double>& values) {
    for (size_t i = 0; i < values.size() && i < self.size() && i < behalf.size(); ++i) {
      self[i] += values[i];
      behalf[i] = std::max(0.0, behalf[i] - values[i]);
    }
  };
  move(record.processor_self, record.processor_behalf, moved.processor);
  move(record.normalized_self, record.normalized_behalf, moved.normalized);
  for (size_t s = 0; s < capture::kStateCount; ++s) {
    record.state_self[s] += moved.states.state[s];
    record.state_behalf[s] = std::max(0.0, record.state_behalf[s] - moved.states.state[s]);
  }
}

// Adds context `from` of `source` into context `into` of `run` (the same P).
void add_context_into(Run& run, uint32_t into, const Run& source, size_t from) {
  add_states(run.contexts[into].own, source.contexts[from].own);
  const auto add = [](std::span<double> to, std::span<const double> values) {
    for (size_t b = 0; b < to.size() && b < values.size(); ++b) to[b] += values[b];
  };
  add(run.processor_of(into), source.processor_of(from));
  add(run.normalized_of(into), source.normalized_of(from));
}

// Adds context `from` of `source` into `record`.
void add_context_into(ContextRecord& record, const Run& source, size_t from) {
  add_states(record.states, source.contexts[from].own);
  add_values(record.processor, source.processor_of(from));
  add_values(record.normalized, source.normalized_of(from));
}

}  // namespace

std::optional<Run> fold_system_frames(const Run& run) {
  const bool any =
      std::any_of(run.procedures.begin(), run.procedures.end(),
                  [&](const ProcedureInfo& p) { return is_system_procedure(run, p.address); }) ||
      std::any_of(run.edges.begin(), run.edges.end(),
                  [&](const Edge& e) { return is_system_procedure(run, e.callee); });
  if (!any) return std::nullopt;

  Run folded = run;
  folded.contexts = {};
  folded.context_bins = {};
  // Old context -> new; merged contexts are found by (new parent, address, kind).
  std::vector<uint32_t> to_new(run.contexts.size(), capture::kNoParent);
  std::map<std::tuple<uint32_t, uint64_t, uint32_t>, uint32_t> by_key;
  std::unordered_set<uint64_t> kept_system;  // system frames with nothing above to fold into
  // What each kept record takes as its own, by (address, kind) of the kept context.
  std::map<std::pair<uint64_t, uint32_t>, ContextRecord> taken;
  std::unordered_map<uint64_t, uint64_t> caller_of;  // system procedure -> program's caller
  for (size_t i = 0; i < run.contexts.size(); ++i) {
    const ContextInfo& c = run.contexts[i];
    const uint32_t parent = c.parent == capture::kNoParent ? capture::kNoParent : to_new[c.parent];
    const bool system = c.kind == capture::kProcedure && is_system_procedure(run, c.address);
    if (system && parent != capture::kNoParent) {
      to_new[i] = parent;
      const ContextInfo& into = folded.contexts[parent];
      add_context_into(taken[{into.address, into.kind}], run, i);
      add_context_into(folded, parent, run, i);
      uint32_t up = parent;  // the nearest procedure above: objects held in between do not call
      while (up != capture::kNoParent && folded.contexts[up].kind != capture::kProcedure) {
        up = folded.contexts[up].parent;
      }
      caller_of.emplace(c.address, up == capture::kNoParent ? 0 : folded.contexts[up].address);
      continue;
    }
    if (system) kept_system.insert(c.address);
    const auto key = std::make_tuple(parent, c.address, c.kind);
    auto found = by_key.find(key);
    if (found != by_key.end()) {
      to_new[i] = found->second;
      add_context_into(folded, found->second, run, i);
      continue;
    }
    ContextInfo copy = c;
    copy.parent = parent;
    const auto id = static_cast<uint32_t>(folded.contexts.size());
    to_new[i] = id;
    by_key.emplace(key, id);
    folded.add_context(copy, {});
    add_context_into(folded, id, run, i);
  }

  auto folds = [&](uint64_t address) {
    return is_system_procedure(run, address) && !kept_system.count(address);
  };
  folded.procedures.clear();
  for (const ProcedureInfo& p : run.procedures) {
    if (folds(p.address)) continue;
    ProcedureInfo copy = p;
    auto it = taken.find({p.address, capture::kProcedure});
    if (it != taken.end()) move_to_self(copy.record, it->second);
    folded.procedures.push_back(std::move(copy));
  }
  for (ObjectInfo& o : folded.objects) {
    auto it = taken.find({o.address, o.kind});
    if (it != taken.end()) move_to_self(o.record, it->second);
  }

  // A system procedure no sample found (so in no context) calls for its most frequent
  // caller, up through the call graph to the program's own.
  std::unordered_map<uint64_t, const Edge*> busiest_call_of;
  for (const Edge& e : run.edges) {
    const Edge*& busiest = busiest_call_of[e.callee];
    if (!busiest || e.calls > busiest->calls) busiest = &e;
  }
  auto program_caller = [&](uint64_t caller) {
    for (int hops = 0; caller != 0 && folds(caller) && hops < 64; ++hops) {
      if (auto known = caller_of.find(caller); known != caller_of.end()) return known->second;
      auto up = busiest_call_of.find(caller);
      caller = up == busiest_call_of.end() ? 0 : up->second->caller;
    }
    return folds(caller) ? 0 : caller;
  };
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> edges;
  for (const Edge& e : run.edges) {
    if (!folds(e.callee)) edges[{program_caller(e.caller), e.callee}] += e.calls;
  }
  folded.edges.clear();
  for (const auto& [edge, calls] : edges)
    folded.edges.push_back(Edge{edge.first, edge.second, calls});
  return folded;
}

}  // namespace quartz::analysis
