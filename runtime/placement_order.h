// The order in which `quartz run --placement` gives the processors the program may use to
// its groups: group i runs on the i-th. One hardware thread of every core comes before a
// second of any, so that two groups share a core only when there are more groups than
// cores: two groups on one core's hardware threads run slower than the two processors a
// prediction counted. Cores come in the order of their first processor's number, so that
// the machines that number every core's first thread first (x86 Linux) keep the plain
// order. Pure and allocation-free: the caller supplies each processor's core (hwloc in
// the sampler's plan, tests/sampler/placement_plan_test.cpp).
#pragma once

#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt {

struct PlacementProcessor {
  uint32_t cpu;   // the kernel's number
  uint32_t core;  // any number that this processor's core alone has
  uint32_t rank;  // filled by order_for_groups: hardware threads of its core before it
};

// Reorders `processors` (ascending cpu, `scratch` room for as many) into the groups' order:
// every core's first processor, then every core's second, and so on.
QUARTZ_NOINSTR inline void order_for_groups(PlacementProcessor* processors, uint32_t count,
                                            PlacementProcessor* scratch) {
  uint32_t deepest = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t rank = 0;
    for (uint32_t j = 0; j < i; ++j) rank += processors[j].core == processors[i].core;
    processors[i].rank = rank;
    if (rank > deepest) deepest = rank;
  }
  uint32_t n = 0;
  for (uint32_t rank = 0; rank <= deepest && count > 0; ++rank) {
    for (uint32_t i = 0; i < count; ++i) {
      if (processors[i].rank == rank) scratch[n++] = processors[i];
    }
  }
  for (uint32_t i = 0; i < n; ++i) processors[i] = scratch[i];
}

}  // namespace quartz::rt
