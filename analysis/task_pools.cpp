#include "analysis/task_pools.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "analysis/display_names.h"

namespace quartz::analysis {

namespace {

// The run's threads by index (nullptr where it has none): looked up once, not per pair of a
// thousand threads waiting on one condition.
std::vector<const profile::ThreadInfo*> threads_by_index(const profile::Run& run) {
  std::vector<const profile::ThreadInfo*> out;
  for (const profile::ThreadInfo& t : run.threads) {
    if (out.size() <= t.index) out.resize(t.index + 1);
    out[t.index] = &t;
  }
  return out;
}

// What makes threads siblings: their first procedures (a std::thread's trampolines and its
// callable) or, from captures that lack them, the routine given to pthread_create; empty
// when the thread says neither.
std::vector<uint64_t> start_of(const profile::ThreadInfo* t) {
  if (!t) return {};
  if (!t->routines.empty()) return t->routines;
  if (t->start_routine != 0) return {t->start_routine};
  return {};
}

// The groups merged: each group's representative (the lowest group it is merged with).
uint32_t root(std::vector<uint32_t>& parent, uint32_t g) {
  while (parent[g] != g) g = parent[g] = parent[parent[g]];
  return g;
}

// The distinct groups of `grouping` that a pool's threads are in.
std::vector<uint32_t> groups_of(const Grouping& grouping, const TaskPool& pool) {
  std::vector<uint32_t> groups;
  for (uint32_t t : pool.threads) {
    if (t < grouping.group_of.size()) groups.push_back(grouping.group_of[t]);
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

}  // namespace

std::vector<TaskPool> task_pools(const profile::Run& run,
                                 std::span<const StepAssembler::ConditionUse> conditions) {
  const std::vector<const profile::ThreadInfo*> by_index = threads_by_index(run);
  auto start = [&](uint32_t index) {
    return start_of(index < by_index.size() ? by_index[index] : nullptr);
  };
  std::vector<TaskPool> pools;
  for (const StepAssembler::ConditionUse& c : conditions) {
    if (c.signals <= c.broadcasts) continue;
    // Its waiters, and their siblings that took its mutex: workers that found work queued
    // every time.
    std::set<std::vector<uint64_t>> waiters_starts;
    for (uint32_t w : c.waiters) {
      if (std::vector<uint64_t> s = start(w); !s.empty()) waiters_starts.insert(std::move(s));
    }
    std::vector<uint32_t> pool = c.waiters;
    for (uint32_t taker : c.takers) {
      if (!std::binary_search(c.waiters.begin(), c.waiters.end(), taker) &&
          waiters_starts.count(start(taker))) {
        pool.insert(std::upper_bound(pool.begin(), pool.end(), taker), taker);
      }
    }
    const bool fed = std::any_of(c.signallers.begin(), c.signallers.end(), [&](uint32_t t) {
      return !std::binary_search(pool.begin(), pool.end(), t);
    });
    const bool known = std::any_of(pools.begin(), pools.end(),
                                   [&](const TaskPool& p) { return p.threads == pool; });
    if (pool.size() >= 2 && fed && !known) pools.push_back({std::move(pool)});
  }
  return pools;
}

std::optional<SimulationConfig> pooled_grouping(const Grouping& grouping,
                                                std::span<const TaskPool> pools) {
  const uint32_t groups = grouping.groups;
  std::vector<uint32_t> parent(groups);
  std::iota(parent.begin(), parent.end(), 0u);
  bool split = false;
  for (const TaskPool& pool : pools) {
    const std::vector<uint32_t> in = groups_of(grouping, pool);
    for (size_t i = 1; i < in.size(); ++i) {
      const uint32_t a = root(parent, in[0]), b = root(parent, in[i]);
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
      split = true;
    }
  }
  if (!split) return std::nullopt;
  std::vector<uint32_t> renumbered(groups, ~0u);
  SimulationConfig c;
  for (uint32_t g = 0; g < groups; ++g) {
    const uint32_t r = root(parent, g);
    if (renumbered[r] == ~0u) {
      renumbered[r] = static_cast<uint32_t>(c.cores.size());
      c.cores.push_back(0);
    }
    c.cores[renumbered[r]] += 1;
  }
  c.group_of_thread.reserve(grouping.group_of.size());
  for (uint32_t g : grouping.group_of) c.group_of_thread.push_back(renumbered[root(parent, g)]);
  return c;
}

std::string split_pools(const Grouping& grouping, std::span<const TaskPool> pools,
                        const profile::Run& run) {
  const std::vector<const profile::ThreadInfo*> by_index = threads_by_index(run);
  std::string out;
  for (const TaskPool& pool : pools) {
    if (groups_of(grouping, pool).size() < 2) continue;
    // The name they share, if they do, then their indices.
    std::vector<std::string> names;
    std::string indices;
    for (uint32_t index : pool.threads) {
      indices += (indices.empty() ? "" : ",") + std::to_string(index);
      const profile::ThreadInfo* t = index < by_index.size() ? by_index[index] : nullptr;
      names.push_back(t ? thread_name(run, *t) : "");
    }
    const bool shared = std::all_of(names.begin(), names.end(),
                                    [&](const std::string& n) { return n == names.front(); });
    const std::string name = shared ? names.front() : "";
    out += (out.empty() ? "" : "; ") + (name.empty() ? "" : name + " ") + indices;
  }
  return out;
}

}  // namespace quartz::analysis
