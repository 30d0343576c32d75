// Where the sampler and the program run (DESIGN.md §3 "Sampler"), decided from a topology
// and the processors the program may use, binding nothing: place_sampler (placement.h)
// applies the plan to the machine; the tests give it hwloc's synthetic topologies of 4 to
// 256 processors (tests/sampler/placement_plan_test.cpp). Runs once, on the sampler thread
// at start-up: hwloc allocates.
#pragma once

#include <hwloc.h>

#include <cstddef>
#include <cstdint>

#include "runtime/options.h"
#include "sampler/shared_processors.h"
#include "support/attributes.h"

namespace quartz::sampler {

struct PlacementPlan {
  bool reserve = false;
  hwloc_bitmap_t sampler;  // the processors reserved for it, or those it takes in turn
  hwloc_bitmap_t program;  // the processors the program may use: P is their count
  // When sharing: `sampler` in ascending order, `next` the one it starts on.
  SharedProcessors turns;
  char topology[256];  // the machine, for the run section
  // Why an option could not be followed, for stderr (null: nothing to say).
  const char* warning = nullptr;

  QUARTZ_NOINSTR PlacementPlan();
  QUARTZ_NOINSTR ~PlacementPlan();
  PlacementPlan(const PlacementPlan&) = delete;
  PlacementPlan& operator=(const PlacementPlan&) = delete;
};

// Decides whether the sampler reserves processors and which, or which it takes in turn.
// `allowed`: the processors the program may use before the sampler takes any. False when
// `allowed` is empty or hwloc cannot allocate.
QUARTZ_NOINSTR bool plan_placement(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                                   const rt::Options& options, PlacementPlan& plan);

// The processors of `allowed` in the order `--placement` groups take them
// (runtime/placement_order.h): up to `max` into `cpus`; returns how many.
QUARTZ_NOINSTR uint32_t group_processors(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                                         uint32_t* cpus, uint32_t max);

// The whole machine in words: "2 packages, 64 cores, 128 PUs (2 per core), 4 NUMA nodes".
QUARTZ_NOINSTR void describe_topology(hwloc_topology_t topology, char* out, size_t size);

}  // namespace quartz::sampler
