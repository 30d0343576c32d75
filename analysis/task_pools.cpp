#include "analysis/task_pools.h"

#include <algorithm>
#include <numeric>

#include "analysis/display_names.h"

namespace quartz::analysis {

namespace {

const profile::ThreadInfo* thread_at(const profile::Run& run, uint32_t index) {
  for (const profile::ThreadInfo& t : run.threads) {
    if (t.index == index) return &t;
  }
  return nullptr;
}

// Threads of one start: the same first procedures (a std::thread's trampolines and its
// callable) or, from captures that lack them, the same routine given to pthread_create.
bool siblings(const profile::ThreadInfo& a, const profile::ThreadInfo& b) {
  if (!a.routines.empty() || !b.routines.empty()) return a.routines == b.routines;
  return a.start_routine != 0 && a.start_routine == b.start_routine;
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
  std::vector<TaskPool> pools;
  for (const StepAssembler::ConditionUse& c : conditions) {
    if (c.signals <= c.broadcasts) continue;
    // Its waiters, and their siblings that took its mutex: workers that found work queued
    // every time.
    std::vector<uint32_t> pool = c.waiters;
    for (uint32_t taker : c.takers) {
      const profile::ThreadInfo* t = thread_at(run, taker);
      if (!t || std::binary_search(pool.begin(), pool.end(), taker)) continue;
      const bool sibling = std::any_of(c.waiters.begin(), c.waiters.end(), [&](uint32_t w) {
        const profile::ThreadInfo* waiter = thread_at(run, w);
        return waiter && siblings(*waiter, *t);
      });
      if (sibling) pool.insert(std::upper_bound(pool.begin(), pool.end(), taker), taker);
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
  std::string out;
  for (const TaskPool& pool : pools) {
    if (groups_of(grouping, pool).size() < 2) continue;
    std::string indices, name;
    for (uint32_t index : pool.threads) {
      indices += (indices.empty() ? "" : ",") + std::to_string(index);
      const profile::ThreadInfo* t = thread_at(run, index);
      const std::string own = t ? thread_name(run, *t) : "";
      name = index == pool.threads.front() || own == name ? own : "";
    }
    out += (out.empty() ? "" : "; ") + (name.empty() ? "" : name + " ") + indices;
  }
  return out;
}

}  // namespace quartz::analysis
