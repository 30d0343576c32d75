#include "sampler/measure/placement.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <sched.h>
#include <stdio.h>

#include "runtime/placement.h"
#include "sampler/measure/placement_plan.h"
#include "support/safe_file.h"

namespace quartz::sampler {
namespace {

// Moves the program onto its processors and the calling thread onto the reserved ones;
// false, with the program left where it was, when the kernel refuses (a cgroup, a
// container's policy).
QUARTZ_NOINSTR bool bind_reserved(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                                  const PlacementPlan& plan) {
  if (hwloc_set_cpubind(topology, plan.program, HWLOC_CPUBIND_PROCESS) != 0) return false;
  if (hwloc_set_cpubind(topology, plan.sampler, HWLOC_CPUBIND_THREAD) == 0) return true;
  hwloc_set_cpubind(topology, allowed, HWLOC_CPUBIND_PROCESS);
  return false;
}

// Plans, binds and fills the run section. Returns P.
QUARTZ_NOINSTR uint32_t place(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                              const rt::Options& options, RunInfo& info, SharedProcessors& turns) {
  PlacementPlan plan;
  if (!plan_placement(topology, allowed, options, plan)) {
    const int processors = hwloc_bitmap_weight(allowed);
    return processors > 0 ? static_cast<uint32_t>(processors) : 1;
  }
  if (plan.warning) {
    char line[256];
    snprintf(line, sizeof line, "quartz: %s\n", plan.warning);
    support::write_message(line);
  }
  if (plan.reserve && !bind_reserved(topology, allowed, plan)) {
    rt::Options sharing = options;
    sharing.reserve = 0;
    plan_placement(topology, allowed, sharing, plan);
  }
  hwloc_bitmap_t start = hwloc_bitmap_alloc();
  if (!plan.reserve && start && plan.turns.count > 0) {
    // Sharing the processors, on one of them at a time: a sampler the scheduler may place
    // anywhere at each wake-up moves the program's threads around (a serial share up to 4
    // points too high).
    hwloc_bitmap_only(start, plan.turns.cpus[plan.turns.next]);
    if (hwloc_set_cpubind(topology, start, HWLOC_CPUBIND_THREAD) != 0) {
      plan.turns.count = plan.turns.next = 0;
      hwloc_bitmap_zero(plan.sampler);
    } else if (plan.turns.count == 1) {
      hwloc_bitmap_copy(plan.sampler, start);
    }
  }
  hwloc_bitmap_free(start);
  info.reserve = plan.reserve;
  hwloc_bitmap_list_snprintf(info.sampler_cores, sizeof info.sampler_cores, plan.sampler);
  hwloc_bitmap_list_snprintf(info.app_cores, sizeof info.app_cores, plan.program);
  info.reserved_cores[0] = '\0';
  if (plan.reserve) {
    hwloc_bitmap_list_snprintf(info.reserved_cores, sizeof info.reserved_cores, plan.sampler);
  }
  snprintf(info.topology, sizeof info.topology, "%s", plan.topology);
  turns = plan.turns;
  const int processors = hwloc_bitmap_weight(plan.program);
  return processors > 0 ? static_cast<uint32_t>(processors) : 1;
}

}  // namespace

uint32_t place_sampler(const rt::Options& options, RunInfo& info, SharedProcessors& turns) {
  turns.count = turns.next = 0;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return 1;
  uint32_t processors = 1;
  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  if (allowed && hwloc_topology_load(topology) == 0) {
    cpu_set_t before;
    if (rt::processors_before_placement(&before)) {
      hwloc_cpuset_from_glibc_sched_affinity(topology, allowed, &before, sizeof before);
    } else if (hwloc_get_cpubind(topology, allowed, HWLOC_CPUBIND_PROCESS) != 0) {
      hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topology));
    }
    processors = place(topology, allowed, options, info, turns);
  }
  hwloc_bitmap_free(allowed);
  hwloc_topology_destroy(topology);
  return processors;
}

void take_next_turn(SharedProcessors& turns) {
  if (turns.count < 2) return;
  turns.next = (turns.next + 1) % turns.count;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(turns.cpus[turns.next], &one);
  sched_setaffinity(0, sizeof one, &one);  // if refused, it stays where it is
}

}  // namespace quartz::sampler
