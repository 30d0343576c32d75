#include "analysis/grouping.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "analysis/profile_view.h"
#include "format/placement_syntax.h"

namespace quartz::analysis {
namespace {

// Canonical: groups numbered in order of their lowest thread.
Grouping canonical(Grouping g) {
  std::vector<uint32_t> renumber(g.groups, ~0u);
  uint32_t next = 0;
  for (uint32_t& group : g.group_of) {
    if (renumber[group] == ~0u) renumber[group] = next++;
    group = renumber[group];
  }
  return g;
}

void partitions(uint32_t thread, uint32_t threads, uint32_t groups, Grouping& current,
                uint32_t used, std::vector<Grouping>& out, size_t limit, bool& overflow) {
  if (overflow) return;
  if (threads - thread < groups - used) return;  // not enough threads left to fill groups
  if (thread == threads) {
    if (used == groups) {
      if (out.size() == limit) {
        overflow = true;
        return;
      }
      out.push_back(current);
    }
    return;
  }
  for (uint32_t g = 0; g < used; ++g) {
    current.group_of[thread] = g;
    partitions(thread + 1, threads, groups, current, used, out, limit, overflow);
  }
  if (used < groups) {
    current.group_of[thread] = used;
    partitions(thread + 1, threads, groups, current, used + 1, out, limit, overflow);
  }
}

}  // namespace

Grouping parse_grouping(const std::string& spec, const profile::Run& run) {
  std::vector<format::PlacementMember> members;
  const format::PlacementSyntax syntax = format::parse_placement(
      spec, [&](const format::PlacementMember& m) { members.push_back(m); });
  if (syntax.error != format::PlacementSyntaxError::none) {
    std::string what = format::describe(syntax.error);
    if (!syntax.where.empty()) what += " ('" + std::string(syntax.where) + "')";
    throw GroupingError("grouping '" + spec + "': " + what);
  }
  Grouping g;
  g.groups = syntax.groups;
  uint32_t threads = 0;
  for (const auto& t : run.threads) threads = std::max(threads, t.index + 1);
  g.group_of.assign(threads, ~0u);
  uint32_t rest = ~0u;
  for (const format::PlacementMember& member : members) {
    if (member.kind == format::PlacementMemberKind::rest) {
      rest = member.group;
      continue;
    }
    bool found = false;
    for (const auto& t : run.threads) {
      if (!format::names_thread(member, t.index, t.name)) continue;
      found = true;
      if (g.group_of[t.index] != ~0u && g.group_of[t.index] != member.group) {
        throw GroupingError("grouping '" + spec + "': thread " + std::to_string(t.index) + " (" +
                            t.name + ") is in two groups");
      }
      g.group_of[t.index] = member.group;
    }
    if (!found) {
      throw GroupingError("grouping '" + spec + "': '" + std::string(member.text) +
                          "' names no thread");
    }
  }
  std::string missing;
  for (const auto& t : run.threads) {
    if (g.group_of[t.index] != ~0u) continue;
    if (rest != ~0u) {
      g.group_of[t.index] = rest;
    } else {
      missing += (missing.empty() ? "" : ", ") + std::to_string(t.index) + " (" + t.name + ")";
    }
  }
  if (!missing.empty()) {
    throw GroupingError("grouping '" + spec + "': threads " + missing +
                        " are in no group (name them, or add '*' to a group)");
  }
  for (uint32_t& group : g.group_of) {
    if (group == ~0u) group = rest == ~0u ? 0 : rest;  // indices the run never used
  }
  return g;
}

std::string grouping_spec(const Grouping& grouping) {
  const Grouping g = canonical(grouping);
  std::string out;
  for (uint32_t group = 0; group < g.groups; ++group) {
    if (group) out += '|';
    bool first = true;
    for (uint32_t t = 0; t < g.group_of.size(); ++t) {
      if (g.group_of[t] != group) continue;
      if (!first) out += ',';
      out += std::to_string(t);
      first = false;
    }
  }
  return out;
}

std::string grouping_names(const Grouping& grouping, const profile::Run& run) {
  std::map<std::string, int> uses;
  for (const auto& t : run.threads) ++uses[thread_name(run, t)];
  std::vector<std::string> label(grouping.group_of.size());
  for (uint32_t i = 0; i < label.size(); ++i) label[i] = std::to_string(i);
  for (const auto& t : run.threads) {
    const std::string name = thread_name(run, t);
    if (t.index < label.size() && uses[name] == 1) label[t.index] = name;
  }
  const Grouping g = canonical(grouping);
  std::string out;
  for (uint32_t group = 0; group < g.groups; ++group) {
    if (group) out += " | ";
    bool first = true;
    for (uint32_t t = 0; t < g.group_of.size(); ++t) {
      if (g.group_of[t] != group) continue;
      if (!first) out += ',';
      out += label[t];
      first = false;
    }
  }
  return out;
}

std::vector<Grouping> all_groupings(uint32_t threads, uint32_t groups, size_t limit) {
  std::vector<Grouping> out;
  if (groups == 0 || groups > threads) return out;
  Grouping current;
  current.groups = groups;
  current.group_of.assign(threads, 0);
  bool overflow = false;
  partitions(0, threads, groups, current, 0, out, limit, overflow);
  if (overflow) out.clear();
  return out;
}

Grouping balanced_grouping(const std::vector<double>& cpu_ns, uint32_t groups) {
  Grouping g;
  g.groups = groups;
  g.group_of.assign(cpu_ns.size(), 0);
  std::vector<uint32_t> order(cpu_ns.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return cpu_ns[a] > cpu_ns[b]; });
  std::vector<double> load(groups, 0);
  for (uint32_t t : order) {
    const auto least =
        static_cast<uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    g.group_of[t] = least;
    load[least] += cpu_ns[t];
  }
  return canonical(g);
}

std::vector<Grouping> neighbours(const Grouping& grouping) {
  std::vector<Grouping> out;
  std::vector<uint32_t> size(grouping.groups, 0);
  for (uint32_t group : grouping.group_of) ++size[group];
  for (uint32_t t = 0; t < grouping.group_of.size(); ++t) {
    if (size[grouping.group_of[t]] == 1) continue;
    for (uint32_t group = 0; group < grouping.groups; ++group) {
      if (group == grouping.group_of[t]) continue;
      Grouping n = grouping;
      n.group_of[t] = group;
      out.push_back(canonical(n));
    }
  }
  return out;
}

}  // namespace quartz::analysis
