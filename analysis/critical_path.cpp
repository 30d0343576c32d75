#include "analysis/critical_path.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/display_names.h"
#include "analysis/profile_view.h"
#include "analysis/simulation.h"
#include "profile/system_code.h"

namespace quartz::analysis {
namespace {

constexpr size_t kListed = 10;  // rows per critical-path list

// The kListed largest, largest first (equal times by name): a critical path through
// 100,000 locks lists ten of them.
template <typename NamedNs>
std::vector<NamedTime> top(const NamedNs& values) {
  std::vector<std::pair<const std::string*, double>> all;
  all.reserve(values.size());
  for (const auto& [name, ns] : values) all.emplace_back(&name, ns);
  const size_t listed = std::min(kListed, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(listed), all.end(),
                    [](const auto& a, const auto& b) {
                      return a.second != b.second ? a.second > b.second : *a.first < *b.first;
                    });
  std::vector<NamedTime> out;
  for (size_t i = 0; i < listed; ++i) out.push_back({*all[i].first, all[i].second / 1e9});
  return out;
}

}  // namespace

CriticalPath describe_path(const profile::Run& run, const SimulationResult& r, double observed_s) {
  CriticalPath cp;
  cp.length_s = r.elapsed_ns / 1e9;
  cp.share = share(cp.length_s, observed_s).value_or(0);
  if (!r.path) return cp;
  const PathComposition& p = *r.path;
  cp.cpu_s = p.cpu_ns / 1e9;
  cp.delay_s = p.delay_ns / 1e9;
  std::map<std::string, double> threads, procedures;
  std::unordered_map<std::string, double> locks;
  for (uint32_t i = 0; i < p.thread_ns.size(); ++i) {
    if (p.thread_ns[i] <= 0) continue;
    std::string name = std::to_string(i);
    for (const auto& t : run.threads) {
      if (t.index == i) name = std::to_string(i) + " " + thread_name(run, t);
    }
    threads[name] += p.thread_ns[i];
  }
  std::map<uint32_t, const profile::ContextInfo*> contexts;
  for (const auto& c : run.contexts) contexts[c.id] = &c;
  // As in the reports, the program's own procedures: a system frame's time on the path is
  // its caller's already (std::thread's trampolines would list as long as main).
  for (const auto& [id, ns] : p.context_ns) {
    std::set<uint64_t> seen;  // a recursive procedure counts once
    for (auto it = contexts.find(id); it != contexts.end();
         it = contexts.find(it->second->parent)) {
      const profile::ContextInfo& c = *it->second;
      if (c.kind == capture::kProcedure && !profile::is_system_procedure(run, c.address) &&
          seen.insert(c.address).second) {
        procedures[display_name(run, c.address)] += ns;
      }
      if (c.parent == capture::kNoParent) break;
    }
  }
  // An object's name is its own (object_names tells apart the objects that share one), so
  // a path through 100,000 locks names only those that can be among the longest held.
  const auto object_name = object_names(run);
  std::vector<std::pair<const std::string*, double>> held;  // objects' names, by the name
  held.reserve(p.lock_ns.size());
  for (const auto& [address, ns] : p.lock_ns) {
    auto object = object_name.find(address);
    if (object != object_name.end()) {
      held.emplace_back(&object->second, ns);
    } else {
      locks[display_name(run, address)] += ns;  // no object of the run: names may repeat
    }
  }
  for (const auto& [name, ns] : locks) held.emplace_back(&name, ns);
  if (held.size() > kListed) {
    std::nth_element(held.begin(), held.begin() + (kListed - 1), held.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const double least = held[kListed - 1].second;
    std::erase_if(held, [&](const auto& h) { return h.second < least; });
  }
  std::unordered_map<std::string, double> longest;
  for (const auto& [name, ns] : held) longest[*name] += ns;
  cp.threads = top(threads);
  cp.procedures = top(procedures);
  cp.locks = top(longest);
  return cp;
}

}  // namespace quartz::analysis
