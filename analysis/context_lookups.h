// Look-ups the calling-context tree (context_tree.h) and the call graph (call_graph.h)
// share, made once per view: calls by (caller, callee), and names by (address, kind).
// Open hash tables: a run of millions of contexts looks each one up (a node-based table's
// look-ups were a tenth of opening one in the viewer).
#pragma once

#include <tsl/robin_map.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/display_names.h"
#include "profile/run.h"

namespace quartz::analysis {

// Mixed down to the low bits (murmur3's finalizer): the open tables index by them, and
// addresses differ little there.
struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    uint64_t h = p.first * 0x9E3779B97F4A7C15ull ^ p.second;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 33);
  }
};

// Calls by (caller, callee) address, from the run's call graph.
using EdgeCalls = tsl::robin_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash>;

inline EdgeCalls edge_calls_of(const profile::Run& run) {
  EdgeCalls calls;
  for (const profile::Edge& e : run.edges) calls[{e.caller, e.callee}] += e.calls;
  return calls;
}

// The names of procedures and objects, each once, into ProfileView::names.
class ViewNames {
 public:
  ViewNames(const profile::Run& run, std::vector<std::string>& names)
      : run_(run), names_(names), objects_(object_names(run)) {}

  uint32_t index(uint64_t address, uint32_t kind) {
    const auto [found, added] =
        index_.try_emplace({address, kind}, static_cast<uint32_t>(names_.size()));
    if (!added) return found->second;
    if (kind == capture::kProcedure) {
      names_.push_back(display_name(run_, address));
    } else {
      const auto object = objects_.find(address);
      names_.push_back(object != objects_.end() ? object->second
                                                : kind_name(kind) + "@" + hex_address(address));
    }
    return found->second;
  }

 private:
  const profile::Run& run_;
  std::vector<std::string>& names_;
  const std::unordered_map<uint64_t, std::string> objects_;
  tsl::robin_map<std::pair<uint64_t, uint64_t>, uint32_t, PairHash> index_;
};

}  // namespace quartz::analysis
