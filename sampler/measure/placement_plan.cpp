#include "sampler/measure/placement_plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string_view>

#include "format/placement_syntax.h"
#include "runtime/placement_order.h"

namespace quartz::sampler {
namespace {

// Reserving by default from 8 cores up: one core is then at most an eighth of the machine.
constexpr int kAutoReserveCores = 8;

// A bitmap of this scope (null when hwloc could not allocate it).
struct ScopedBitmap {
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  QUARTZ_NOINSTR ~ScopedBitmap() { hwloc_bitmap_free(set); }
};

// The core of processor `cpu`, or the processor itself when the topology has no cores.
QUARTZ_NOINSTR hwloc_obj_t core_of(hwloc_topology_t topology, int cpu) {
  hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology, static_cast<unsigned>(cpu));
  hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_CORE, pu) : nullptr;
  return core ? core : pu;
}

// Cores with a processor in `allowed`.
QUARTZ_NOINSTR int cores_in(hwloc_topology_t topology, hwloc_const_cpuset_t allowed) {
  int cores = 0;
  for (hwloc_obj_t core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, nullptr); core;
       core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, core)) {
    cores += hwloc_bitmap_intersects(core->cpuset, allowed);
  }
  int cpu;
  hwloc_bitmap_foreach_begin(cpu, allowed) {
    hwloc_obj_t core = core_of(topology, cpu);
    cores += core == nullptr || core->type != HWLOC_OBJ_CORE;
  }
  hwloc_bitmap_foreach_end();
  return cores;
}

// The core the sampler reserves unless told which, into `out`.
QUARTZ_NOINSTR void choose_core(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                                hwloc_bitmap_t out, hwloc_bitmap_t scratch) {
  // In the NUMA node with the most processors the program may use (the last of equals): the
  // sampler reads every busy thread's block and clock each period, most threads run there,
  // and its own tables are first touched there.
  hwloc_bitmap_copy(out, allowed);
  int most = 0;
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, nullptr); node;
       node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)) {
    hwloc_bitmap_and(scratch, node->cpuset, allowed);
    const int weight = hwloc_bitmap_weight(scratch);
    if (weight > 0 && weight >= most) {
      most = weight;
      hwloc_bitmap_copy(out, scratch);
    }
  }
  // Its last core: the kernel's housekeeping, the program's first threads and --placement's
  // groups start from the first processors.
  const int last = hwloc_bitmap_last(out);
  hwloc_obj_t core = core_of(topology, last);
  // The whole core: a program thread on a hardware thread beside the sampler would share its
  // pipelines and caches, and be slowed by it unlike the others.
  if (core) {
    hwloc_bitmap_and(out, core->cpuset, allowed);
  } else {
    hwloc_bitmap_only(out, static_cast<unsigned>(last));
  }
}

// The processors to reserve, into `reserved`; false when there are none to take.
QUARTZ_NOINSTR bool choose_reserved(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                                    const rt::Options& options, hwloc_bitmap_t reserved,
                                    hwloc_bitmap_t scratch, const char** warning) {
  choose_core(topology, allowed, reserved, scratch);
  if (options.reserved_cores[0]) {
    // The listed processors exactly, hardware threads as listed: whoever lists them knows
    // the machine (isolated processors, a housekeeping core).
    if (hwloc_bitmap_list_sscanf(scratch, options.reserved_cores) != 0) {
      *warning = "--reserved-cores is not a list of processors: reserving the last core";
    } else {
      hwloc_bitmap_and(scratch, scratch, allowed);
      if (hwloc_bitmap_iszero(scratch)) {
        *warning =
            "--reserved-cores names none of the program's processors: reserving the last core";
      } else if (hwloc_bitmap_isequal(scratch, allowed)) {
        *warning = "--reserved-cores names every processor the program may use: sharing them";
        return false;
      } else {
        hwloc_bitmap_copy(reserved, scratch);
      }
    }
  }
  // A single core, reserved on request: the sampler takes one of its hardware threads.
  if (hwloc_bitmap_isequal(reserved, allowed)) {
    if (hwloc_bitmap_weight(allowed) < 2) return false;
    hwloc_bitmap_only(reserved, static_cast<unsigned>(hwloc_bitmap_last(allowed)));
  }
  return true;
}

// The processors the sampler takes in turn when it shares them, into `plan.sampler`.
QUARTZ_NOINSTR void choose_turns(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                                 const rt::Options& options, PlacementPlan& plan) {
  hwloc_bitmap_copy(plan.sampler, allowed);
  const int processors = hwloc_bitmap_weight(allowed);
  const format::PlacementSyntax syntax =
      format::check_placement(std::string_view(options.placement, strlen(options.placement)));
  // Under --placement, those no group takes, if any: the groups' threads are pinned and
  // cannot move away from the sampler, the others can.
  if (options.placement[0] && syntax.error == format::PlacementSyntaxError::none &&
      syntax.groups < static_cast<uint32_t>(processors)) {
    auto* cpus = static_cast<uint32_t*>(malloc(sizeof(uint32_t) * syntax.groups));
    const uint32_t taken = cpus ? group_processors(topology, allowed, cpus, syntax.groups) : 0;
    for (uint32_t g = 0; g < taken; ++g) hwloc_bitmap_clr(plan.sampler, cpus[g]);
    free(cpus);
  }
  // Ascending, starting on the last: a full round before any processor pays twice.
  int cpu;
  hwloc_bitmap_foreach_begin(cpu, plan.sampler) {
    if (static_cast<uint32_t>(cpu) < SharedProcessors::kMax) {
      plan.turns.cpus[plan.turns.count++] = static_cast<uint16_t>(cpu);
    }
  }
  hwloc_bitmap_foreach_end();
  plan.turns.next = plan.turns.count ? plan.turns.count - 1 : 0;
}

// Appends ", N things" (the first without the comma) to `out`, as room allows.
QUARTZ_NOINSTR void append_count(char* out, size_t size, size_t* used, int count,
                                 const char* singular, const char* plural) {
  if (count <= 0 || *used >= size) return;
  const int n = snprintf(out + *used, size - *used, "%s%d %s", *used ? ", " : "", count,
                         count == 1 ? singular : plural);
  if (n > 0) *used += static_cast<size_t>(n);
}

}  // namespace

PlacementPlan::PlacementPlan() : sampler(hwloc_bitmap_alloc()), program(hwloc_bitmap_alloc()) {
  turns.count = turns.next = 0;
  topology[0] = '\0';
}

PlacementPlan::~PlacementPlan() {
  hwloc_bitmap_free(sampler);
  hwloc_bitmap_free(program);
}

bool plan_placement(hwloc_topology_t topology, hwloc_const_cpuset_t allowed,
                    const rt::Options& options, PlacementPlan& plan) {
  plan.reserve = false;
  plan.warning = nullptr;
  plan.turns.count = plan.turns.next = 0;
  describe_topology(topology, plan.topology, sizeof plan.topology);
  ScopedBitmap reserved, scratch;
  if (!plan.sampler || !plan.program || !reserved.set || !scratch.set) return false;
  hwloc_bitmap_zero(plan.sampler);
  hwloc_bitmap_copy(plan.program, allowed);
  if (hwloc_bitmap_weight(allowed) <= 0) return false;

  // A placement pins threads to processors itself: moving the program off some would undo
  // it. Asked for, a reservation needs a processor left to the program; by default, 8 cores.
  const bool wanted = !options.placement[0] &&
                      (options.reserve == 1 ||
                       (options.reserve < 0 && cores_in(topology, allowed) >= kAutoReserveCores));
  plan.reserve = wanted && choose_reserved(topology, allowed, options, reserved.set, scratch.set,
                                           &plan.warning);
  if (plan.reserve) {
    hwloc_bitmap_copy(plan.sampler, reserved.set);
    hwloc_bitmap_andnot(plan.program, allowed, reserved.set);
  } else {
    choose_turns(topology, allowed, options, plan);
  }
  return true;
}

uint32_t group_processors(hwloc_topology_t topology, hwloc_const_cpuset_t allowed, uint32_t* cpus,
                          uint32_t max) {
  const int weight = hwloc_bitmap_weight(allowed);
  if (weight <= 0 || max == 0) return 0;
  auto* processors = static_cast<rt::PlacementProcessor*>(
      malloc(2 * static_cast<size_t>(weight) * sizeof(rt::PlacementProcessor)));
  if (!processors) return 0;
  uint32_t n = 0;
  int cpu;
  hwloc_bitmap_foreach_begin(cpu, allowed) {
    hwloc_obj_t core = core_of(topology, cpu);
    // A processor the topology gives no core is a core of its own.
    const uint32_t key = core && core->type == HWLOC_OBJ_CORE
                             ? core->logical_index
                             : (uint32_t{1} << 31) | static_cast<uint32_t>(cpu);
    processors[n++] = rt::PlacementProcessor{static_cast<uint32_t>(cpu), key, 0};
  }
  hwloc_bitmap_foreach_end();
  rt::order_for_groups(processors, n, processors + weight);
  const uint32_t written = n < max ? n : max;
  for (uint32_t i = 0; i < written; ++i) cpus[i] = processors[i].cpu;
  free(processors);
  return written;
}

void describe_topology(hwloc_topology_t topology, char* out, size_t size) {
  if (size == 0) return;
  out[0] = '\0';
  size_t used = 0;
  int fewest = INT_MAX, most = 0;  // PUs a core
  for (hwloc_obj_t core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, nullptr); core;
       core = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_CORE, core)) {
    const int pus = hwloc_bitmap_weight(core->cpuset);
    if (pus < fewest) fewest = pus;
    if (pus > most) most = pus;
  }
  append_count(out, size, &used, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE), "package",
               "packages");
  append_count(out, size, &used, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE), "core",
               "cores");
  append_count(out, size, &used, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU), "PU", "PUs");
  // How many hardware threads share a core, when more than one: they share its pipelines.
  if (most > 1 && used < size) {
    const int n = fewest == most
                      ? snprintf(out + used, size - used, " (%d per core)", most)
                      : snprintf(out + used, size - used, " (%d-%d per core)", fewest, most);
    if (n > 0) used += static_cast<size_t>(n);
  }
  append_count(out, size, &used, hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE),
               "NUMA node", "NUMA nodes");
}

}  // namespace quartz::sampler
