#include "sampler/measure/placement.h"

#include <hwloc.h>
#include <sched.h>
#include <stdio.h>

namespace quartz::sampler {

uint32_t place_sampler(const rt::Options& options, RunInfo& info, SharedProcessors& turns) {
  turns.count = turns.next = 0;
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return 1;
  uint32_t processors = 1;
  if (hwloc_topology_load(topology) == 0) {
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    hwloc_bitmap_t reserved = hwloc_bitmap_alloc();
    hwloc_bitmap_t app = hwloc_bitmap_alloc();
    if (hwloc_get_cpubind(topology, allowed, HWLOC_CPUBIND_PROCESS) != 0) {
      hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topology));
    }
    const int pus = hwloc_bitmap_weight(allowed);
    // A placement pins threads to cores itself: reserving would undo it.
    const bool reserve = options.placement[0]   ? false
                         : options.reserve == 1 ? pus >= 2
                         : options.reserve == 0 ? false
                                                : pus >= 8;
    if (reserve) {
      if (options.reserved_cores[0] &&
          hwloc_bitmap_list_sscanf(reserved, options.reserved_cores) == 0) {
        hwloc_bitmap_and(reserved, reserved, allowed);
      }
      if (hwloc_bitmap_iszero(reserved)) hwloc_bitmap_only(reserved, hwloc_bitmap_last(allowed));
      hwloc_bitmap_andnot(app, allowed, reserved);
    }
    if (reserve && !hwloc_bitmap_iszero(app) &&
        hwloc_set_cpubind(topology, app, HWLOC_CPUBIND_PROCESS) == 0 &&
        hwloc_set_cpubind(topology, reserved, HWLOC_CPUBIND_THREAD) == 0) {
      info.reserve = true;
      processors = static_cast<uint32_t>(hwloc_bitmap_weight(app));
      hwloc_bitmap_list_snprintf(info.sampler_cores, sizeof info.sampler_cores, reserved);
    } else {
      hwloc_bitmap_copy(app, allowed);
      hwloc_bitmap_zero(reserved);
      processors = static_cast<uint32_t>(pus > 0 ? pus : 1);
      // Sharing the processors, on one of them at a time: a sampler the scheduler may place
      // anywhere at each wake-up moves the program's threads around (a serial share up to 4
      // points too high).
      int cpu;
      hwloc_bitmap_foreach_begin(cpu, allowed) {
        if (cpu >= 0 && static_cast<uint32_t>(cpu) < SharedProcessors::kMax &&
            turns.count < SharedProcessors::kMax) {
          turns.cpus[turns.count++] = static_cast<uint16_t>(cpu);
        }
      }
      hwloc_bitmap_foreach_end();
      hwloc_bitmap_only(reserved, hwloc_bitmap_last(allowed));
      if (hwloc_set_cpubind(topology, reserved, HWLOC_CPUBIND_THREAD) != 0) {
        hwloc_bitmap_zero(reserved);
        turns.count = 0;
      }
      hwloc_bitmap_list_snprintf(info.sampler_cores, sizeof info.sampler_cores,
                                 turns.count > 1 ? allowed : reserved);
      hwloc_bitmap_zero(reserved);
    }
    hwloc_bitmap_list_snprintf(info.app_cores, sizeof info.app_cores, app);
    hwloc_bitmap_list_snprintf(info.reserved_cores, sizeof info.reserved_cores, reserved);
    snprintf(info.topology, sizeof info.topology, "%d packages, %d cores, %d PUs, %d NUMA nodes",
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE),
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE),
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU),
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE));
    hwloc_bitmap_free(app);
    hwloc_bitmap_free(reserved);
    hwloc_bitmap_free(allowed);
  }
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
