#include "analysis/task_pools.h"

#include <algorithm>
#include <map>
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

// What makes threads siblings: their first procedures (a std::thread's trampolines and its
// callable), or, from captures that lack them, the routine pthread_create was given.
std::vector<uint64_t> start_of(const profile::ThreadInfo& t) {
  if (!t.routines.empty()) return t.routines;
  if (t.start_routine != 0) return {t.start_routine};
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
                                 std::span<const std::vector<uint32_t>> shared_conditions) {
  std::vector<TaskPool> pools;
  for (const std::vector<uint32_t>& waiters : shared_conditions) {
    std::map<std::vector<uint64_t>, TaskPool> by_start;
    for (uint32_t index : waiters) {
      const profile::ThreadInfo* t = thread_at(run, index);
      if (!t || t->index == 0) continue;  // main is nobody's sibling
      std::vector<uint64_t> start = start_of(*t);
      if (!start.empty()) by_start[std::move(start)].threads.push_back(index);
    }
    for (auto& [start, pool] : by_start) {
      if (pool.threads.size() < 2) continue;
      const bool known = std::any_of(pools.begin(), pools.end(),
                                     [&](const TaskPool& p) { return p.threads == pool.threads; });
      if (!known) pools.push_back(std::move(pool));
    }
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
