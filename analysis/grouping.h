// Groupings of a run's threads onto processors: parsed from the command line's
// "0,1|2,worker*" (the syntax `quartz run --placement` applies), named for display, and
// enumerated or searched for `quartz predict --cores K`.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

class GroupingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// group_of[thread index] = its group; every thread in exactly one group.
struct Grouping {
  std::vector<uint32_t> group_of;
  uint32_t groups = 0;
};

// The syntax of format/placement_syntax.h. Every thread of the run must land in exactly one
// group, and every member must name a thread; anything else throws GroupingError.
Grouping parse_grouping(const std::string& spec, const profile::Run& run);

// "0,1|2,3": indices, groups in order of their lowest thread.
std::string grouping_spec(const Grouping& grouping);
// "main,server|client_0": names where they tell threads apart, indices where they do not.
std::string grouping_names(const Grouping& grouping, const profile::Run& run);

// Every way of putting `threads` threads into exactly `groups` non-empty groups (groups
// unordered), as long as there are at most `limit` of them; empty when there are more.
std::vector<Grouping> all_groupings(uint32_t threads, uint32_t groups, size_t limit);

// Threads spread over `groups` groups, largest processor time first onto the least loaded.
Grouping balanced_grouping(const std::vector<double>& cpu_ns, uint32_t groups);

// Every grouping that moves one thread to another group (no group left empty).
std::vector<Grouping> neighbours(const Grouping& grouping);

}  // namespace quartz::analysis
