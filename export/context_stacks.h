// The calling contexts of a view as stacks, outermost first: what pprof samples and
// collapsed-stack lines are made of.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "analysis/profile_view.h"

namespace quartz::exports {

// stacks[i]: indices into view.contexts from the root down to context i (contexts come
// parents first, so a parent's stack is complete before its children's).
inline std::vector<std::vector<uint32_t>> context_stacks(const analysis::ProfileView& view) {
  std::vector<std::vector<uint32_t>> stacks(view.contexts.size());
  for (uint32_t i = 0; i < view.contexts.size(); ++i) {
    const uint32_t parent = view.contexts[i].parent;
    if (parent != capture::kNoParent && parent < i) stacks[i] = stacks[parent];
    stacks[i].push_back(i);
  }
  return stacks;
}

// Seconds as whole nanoseconds, the unit of every exported time.
inline int64_t nanoseconds(double seconds) {
  return std::llround(seconds * 1e9);
}

}  // namespace quartz::exports
