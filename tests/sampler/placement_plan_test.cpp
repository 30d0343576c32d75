// The sampler's placement plan on hwloc's synthetic topologies of 4 to 256 processors: whether
// it reserves, which processors, what the program keeps (P), the turns it takes when
// sharing, where --placement's groups go, the topology's text. The expected processors
// come from the descriptions' arithmetic: "pack:2 core:32 pu:2" has 64 cores, 128 PUs,
// and numbered as x86 Linux numbers them, core k's hardware threads are k and 64 + k.
#include "sampler/measure/placement_plan.h"

#include <gtest/gtest.h>
#include <hwloc.h>
#include <stdlib.h>

#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/placement_order.h"

namespace quartz::sampler {
namespace {

// A synthetic topology, loaded.
class Synthetic {
 public:
  explicit Synthetic(const std::string& description) {
    hwloc_topology_init(&topology_);
    loaded_ = hwloc_topology_set_synthetic(topology_, description.c_str()) == 0 &&
              hwloc_topology_load(topology_) == 0;
  }
  ~Synthetic() { hwloc_topology_destroy(topology_); }
  Synthetic(const Synthetic&) = delete;
  Synthetic& operator=(const Synthetic&) = delete;

  bool loaded() const { return loaded_; }
  hwloc_topology_t get() const { return topology_; }
  hwloc_const_cpuset_t all() const { return hwloc_topology_get_topology_cpuset(topology_); }
  // The core (logical index) and package of processor `cpu`.
  int core_of(unsigned cpu) const { return ancestor(cpu, HWLOC_OBJ_CORE); }
  int package_of(unsigned cpu) const { return ancestor(cpu, HWLOC_OBJ_PACKAGE); }

 private:
  int ancestor(unsigned cpu, hwloc_obj_type_t type) const {
    hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topology_, cpu);
    hwloc_obj_t up = pu ? hwloc_get_ancestor_obj_by_type(topology_, type, pu) : nullptr;
    return up ? static_cast<int>(up->logical_index) : -1;
  }

  hwloc_topology_t topology_ = nullptr;
  bool loaded_ = false;
};

// `levels` (ending with "pu:T") with its PUs numbered as x86 Linux numbers them: every
// core's first hardware thread, then every core's second (core k's are k, cores + k, ...).
std::string linux_numbered(const std::string& levels, int cores, int threads) {
  std::string description = levels + "(indexes=";
  for (int pu = 0; pu < cores * threads; ++pu) {
    if (pu) description += ',';
    description += std::to_string((pu % threads) * cores + pu / threads);
  }
  return description + ")";
}

// A processor list ("0-3,64"), as hwloc writes one.
std::string list(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  hwloc_bitmap_list_asprintf(&text, set);
  std::string result = text ? text : "";
  free(text);
  return result;
}

// A bitmap from a list.
struct Cpuset {
  explicit Cpuset(const char* text) { hwloc_bitmap_list_sscanf(set, text); }
  ~Cpuset() { hwloc_bitmap_free(set); }
  Cpuset(const Cpuset&) = delete;
  Cpuset& operator=(const Cpuset&) = delete;
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
};

std::vector<unsigned> turns_of(const PlacementPlan& plan) {
  return std::vector<unsigned>(plan.turns.cpus, plan.turns.cpus + plan.turns.count);
}

std::vector<unsigned> range(unsigned first, unsigned last) {
  std::vector<unsigned> cpus;
  for (unsigned cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  return cpus;
}

rt::Options options_with(int reserve, const char* reserved_cores = "", const char* placement = "") {
  rt::Options options;
  options.reserve = reserve;
  std::strncpy(options.reserved_cores, reserved_cores, sizeof options.reserved_cores - 1);
  std::strncpy(options.placement, placement, sizeof options.placement - 1);
  return options;
}

constexpr int kAuto = -1, kNo = 0, kYes = 1;

struct Planned {
  explicit Planned(const Synthetic& machine, const rt::Options& options,
                   hwloc_const_cpuset_t allowed = nullptr) {
    made = plan_placement(machine.get(), allowed ? allowed : machine.all(), options, plan);
  }
  int P() const { return hwloc_bitmap_weight(plan.program); }
  std::string sampler() const { return list(plan.sampler); }
  std::string program() const { return list(plan.program); }
  PlacementPlan plan;
  bool made = false;
};

// --- Four processors: the sampler shares them ----------------------------------------

TEST(PlacementPlan, FourSingleThreadedCoresAreSharedInTurnsFromTheLast) {
  Synthetic machine("pack:1 numa:1 core:4 pu:1");
  ASSERT_TRUE(machine.loaded());
  Planned p(machine, options_with(kAuto));
  ASSERT_TRUE(p.made);
  EXPECT_FALSE(p.plan.reserve);
  EXPECT_EQ(p.P(), 4);
  EXPECT_EQ(p.program(), "0-3");
  EXPECT_EQ(p.sampler(), "0-3");
  EXPECT_EQ(turns_of(p.plan), range(0, 3));
  EXPECT_EQ(p.plan.turns.next, 3u);  // it starts on the last
  EXPECT_EQ(p.plan.warning, nullptr);
  EXPECT_STREQ(p.plan.topology, "1 package, 4 cores, 4 PUs, 1 NUMA node");
}

TEST(PlacementPlan, FourHardwareThreadsOnTwoCoresReserveAWholeCoreOnRequest) {
  // Core 1 is PUs 2,3 in hwloc's own numbering, 1,3 in Linux's.
  for (const auto& [description, core1, core0] :
       {std::tuple{std::string("pack:1 numa:1 core:2 pu:2"), "2-3", "0-1"},
        std::tuple{linux_numbered("pack:1 numa:1 core:2 pu:2", 2, 2), "1,3", "0,2"}}) {
    SCOPED_TRACE(description);
    Synthetic machine(description);
    ASSERT_TRUE(machine.loaded());
    Planned automatic(machine, options_with(kAuto));
    EXPECT_FALSE(automatic.plan.reserve);  // 2 cores, not 8
    EXPECT_EQ(automatic.P(), 4);
    EXPECT_EQ(turns_of(automatic.plan), range(0, 3));

    Planned asked(machine, options_with(kYes));
    ASSERT_TRUE(asked.made);
    EXPECT_TRUE(asked.plan.reserve);
    EXPECT_EQ(asked.sampler(), core1);  // both hardware threads of the last core
    EXPECT_EQ(asked.program(), core0);
    EXPECT_EQ(asked.P(), 2);
    EXPECT_EQ(asked.plan.turns.count, 0u);
    EXPECT_STREQ(asked.plan.topology, "1 package, 2 cores, 4 PUs (2 per core), 1 NUMA node");
  }
}

TEST(PlacementPlan, OneCoreReservedOnRequestGivesTheSamplerOneHardwareThread) {
  Synthetic two("pack:1 numa:1 core:1 pu:2");
  ASSERT_TRUE(two.loaded());
  Planned asked(two, options_with(kYes));
  EXPECT_TRUE(asked.plan.reserve);
  EXPECT_EQ(asked.sampler(), "1");
  EXPECT_EQ(asked.P(), 1);

  Synthetic one("pack:1 numa:1 core:1 pu:1");
  ASSERT_TRUE(one.loaded());
  Planned alone(one, options_with(kYes));
  EXPECT_FALSE(alone.plan.reserve);  // nothing would be left to the program
  EXPECT_EQ(alone.P(), 1);
  EXPECT_EQ(turns_of(alone.plan), range(0, 0));
  EXPECT_STREQ(alone.plan.topology, "1 package, 1 core, 1 PU, 1 NUMA node");
}

TEST(PlacementPlan, NoReserveIsHonouredOnFourProcessors) {
  Synthetic machine("pack:2 numa:1 core:2 pu:1");
  ASSERT_TRUE(machine.loaded());
  Planned p(machine, options_with(kNo));
  EXPECT_FALSE(p.plan.reserve);
  EXPECT_EQ(p.P(), 4);
  EXPECT_STREQ(p.plan.topology, "2 packages, 4 cores, 4 PUs, 2 NUMA nodes");
}

// --- The automatic reservation counts cores -------------------------------------------

TEST(PlacementPlan, ReservesByItselfFromEightCoresNotEightHardwareThreads) {
  Synthetic seven("pack:1 numa:1 core:7 pu:1");
  Synthetic eight("pack:1 numa:1 core:8 pu:1");
  Synthetic four_by_two("pack:1 numa:1 core:4 pu:2");
  Synthetic eight_by_two(linux_numbered("pack:1 numa:1 core:8 pu:2", 8, 2));
  ASSERT_TRUE(seven.loaded() && eight.loaded() && four_by_two.loaded() && eight_by_two.loaded());

  EXPECT_FALSE(Planned(seven, options_with(kAuto)).plan.reserve);

  Planned p8(eight, options_with(kAuto));
  EXPECT_TRUE(p8.plan.reserve);
  EXPECT_EQ(p8.sampler(), "7");
  EXPECT_EQ(p8.P(), 7);

  // 8 PUs but 4 cores: a whole core would be a quarter of the machine.
  Planned p4x2(four_by_two, options_with(kAuto));
  EXPECT_FALSE(p4x2.plan.reserve);
  EXPECT_EQ(p4x2.P(), 8);
  EXPECT_EQ(turns_of(p4x2.plan), range(0, 7));

  Planned p8x2(eight_by_two, options_with(kAuto));
  EXPECT_TRUE(p8x2.plan.reserve);
  EXPECT_EQ(p8x2.sampler(), "7,15");  // core 7's two hardware threads
  EXPECT_EQ(p8x2.program(), "0-6,8-14");
  EXPECT_EQ(p8x2.P(), 14);
}

// --- 128 processors ---------------------------------------------------------------------

TEST(PlacementPlan, TwoPackagesOf32CoresReserveTheLastCoreWithBothItsThreads) {
  const std::string levels = "pack:2 numa:1 core:32 pu:2";
  Synthetic linux_order(linux_numbered(levels, 64, 2));
  Synthetic hwloc_order(levels);
  ASSERT_TRUE(linux_order.loaded() && hwloc_order.loaded());

  Planned p(linux_order, options_with(kAuto));
  ASSERT_TRUE(p.made);
  EXPECT_TRUE(p.plan.reserve);
  EXPECT_EQ(p.sampler(), "63,127");
  EXPECT_EQ(linux_order.core_of(63), 63);
  EXPECT_EQ(linux_order.core_of(127), 63);
  EXPECT_EQ(linux_order.package_of(63), 1);
  EXPECT_EQ(p.program(), "0-62,64-126");
  EXPECT_EQ(p.P(), 126);
  EXPECT_FALSE(hwloc_bitmap_intersects(p.plan.sampler, p.plan.program));
  EXPECT_EQ(p.plan.turns.count, 0u);
  EXPECT_STREQ(p.plan.topology, "2 packages, 64 cores, 128 PUs (2 per core), 2 NUMA nodes");

  Planned q(hwloc_order, options_with(kAuto));
  EXPECT_EQ(q.sampler(), "126-127");
  EXPECT_EQ(q.P(), 126);
}

TEST(PlacementPlan, NoReserveOn128ProcessorsTakesEveryOneInTurn) {
  Synthetic machine(linux_numbered("pack:2 numa:1 core:32 pu:2", 64, 2));
  ASSERT_TRUE(machine.loaded());
  Planned p(machine, options_with(kNo));
  EXPECT_FALSE(p.plan.reserve);
  EXPECT_EQ(p.P(), 128);
  EXPECT_EQ(turns_of(p.plan), range(0, 127));
  EXPECT_EQ(p.plan.turns.next, 127u);
  EXPECT_EQ(p.sampler(), "0-127");
}

TEST(PlacementPlan, ReservedCoresAreHonouredAsListed) {
  Synthetic machine(linux_numbered("pack:2 numa:1 core:32 pu:2", 64, 2));
  ASSERT_TRUE(machine.loaded());

  Planned core5(machine, options_with(kYes, "5,69"));  // core 5, both threads
  EXPECT_TRUE(core5.plan.reserve);
  EXPECT_EQ(core5.sampler(), "5,69");
  EXPECT_EQ(core5.program(), "0-4,6-68,70-127");
  EXPECT_EQ(core5.P(), 126);
  EXPECT_EQ(core5.plan.warning, nullptr);

  Planned thread5(machine, options_with(kYes, "5"));  // as listed: its sibling stays
  EXPECT_EQ(thread5.sampler(), "5");
  EXPECT_EQ(thread5.P(), 127);

  Planned two_cores(machine, options_with(kYes, "6-7,70-71"));
  EXPECT_EQ(two_cores.sampler(), "6-7,70-71");
  EXPECT_EQ(two_cores.P(), 124);

  // Listed and partly allowed: only the allowed ones.
  Cpuset first_package_cores("0-31,64-95");
  Planned partly(machine, options_with(kYes, "31,95,127"), first_package_cores.set);
  EXPECT_EQ(partly.sampler(), "31,95");
  EXPECT_EQ(partly.P(), 62);
}

TEST(PlacementPlan, UnusableReservedCoresFallBackWithAWarning) {
  Synthetic machine(linux_numbered("pack:2 numa:1 core:32 pu:2", 64, 2));
  ASSERT_TRUE(machine.loaded());
  for (const char* unusable : {"200", "not a list"}) {
    SCOPED_TRACE(unusable);
    Planned p(machine, options_with(kYes, unusable));
    EXPECT_TRUE(p.plan.reserve);
    EXPECT_EQ(p.sampler(), "63,127");  // the default core
    EXPECT_NE(p.plan.warning, nullptr);
  }
  Planned everything(machine, options_with(kYes, "0-127"));
  EXPECT_FALSE(everything.plan.reserve);
  EXPECT_EQ(everything.P(), 128);
  EXPECT_NE(everything.plan.warning, nullptr);
}

TEST(PlacementPlan, AnAllowedSubsetReservesOnlyItsOwnProcessors) {
  // Cores 0-15's first threads only (a cpuset, taskset): 16 cores, each with one PU.
  Synthetic machine(linux_numbered("pack:2 numa:1 core:32 pu:2", 64, 2));
  ASSERT_TRUE(machine.loaded());
  Cpuset first_threads("0-15");
  Planned p(machine, options_with(kAuto), first_threads.set);
  EXPECT_TRUE(p.plan.reserve);
  EXPECT_EQ(p.sampler(), "15");  // core 15's sibling, 79, is not the program's to give
  EXPECT_EQ(p.program(), "0-14");
  EXPECT_EQ(p.P(), 15);

  Cpuset four_cores("0-3,64-67");  // 4 cores, 8 PUs: shared
  Planned q(machine, options_with(kAuto), four_cores.set);
  EXPECT_FALSE(q.plan.reserve);
  EXPECT_EQ(q.P(), 8);
  EXPECT_EQ(turns_of(q.plan), (std::vector<unsigned>{0, 1, 2, 3, 64, 65, 66, 67}));
}

// --- NUMA ---------------------------------------------------------------------------------

TEST(PlacementPlan, FourNumaNodesReserveInTheNodeWithTheMostProgramProcessors) {
  // 2 packages x 2 nodes x 16 cores x 2 PUs: node n holds PUs 32n to 32n + 31.
  Synthetic machine("pack:2 numa:2 core:16 pu:2");
  ASSERT_TRUE(machine.loaded());
  Planned even(machine, options_with(kAuto));
  EXPECT_TRUE(even.plan.reserve);
  EXPECT_EQ(even.sampler(), "126-127");  // equal nodes: the last
  EXPECT_EQ(even.P(), 126);
  EXPECT_STREQ(even.plan.topology, "2 packages, 64 cores, 128 PUs (2 per core), 4 NUMA nodes");

  // Node 0 whole, half of node 3: node 0 has the most.
  Cpuset uneven("0-31,96-111");
  Planned p(machine, options_with(kAuto), uneven.set);
  EXPECT_TRUE(p.plan.reserve);
  EXPECT_EQ(p.sampler(), "30-31");  // node 0's last core
  EXPECT_EQ(p.P(), 46);

  Cpuset node1_more("0-7,32-63");
  Planned r(machine, options_with(kAuto), node1_more.set);
  EXPECT_EQ(r.sampler(), "62-63");
}

// --- 256 processors -------------------------------------------------------------------------

TEST(PlacementPlan, FourPackagesOf32CoresOn256Processors) {
  Synthetic machine(linux_numbered("pack:4 numa:1 core:32 pu:2", 128, 2));
  ASSERT_TRUE(machine.loaded());
  Planned p(machine, options_with(kAuto));
  ASSERT_TRUE(p.made);
  EXPECT_TRUE(p.plan.reserve);
  EXPECT_EQ(p.sampler(), "127,255");
  EXPECT_EQ(machine.core_of(127), machine.core_of(255));
  EXPECT_EQ(machine.package_of(127), 3);
  EXPECT_EQ(p.program(), "0-126,128-254");
  EXPECT_EQ(p.P(), 254);
  EXPECT_STREQ(p.plan.topology, "4 packages, 128 cores, 256 PUs (2 per core), 4 NUMA nodes");

  Planned shared(machine, options_with(kNo));
  EXPECT_EQ(shared.P(), 256);
  EXPECT_EQ(shared.plan.turns.count, 256u);
}

// --- --placement ----------------------------------------------------------------------------

TEST(PlacementPlan, GroupsTakeOneHardwareThreadOfEveryCoreFirst) {
  for (const bool linux_order : {true, false}) {
    SCOPED_TRACE(linux_order ? "Linux numbering" : "hwloc numbering");
    const std::string levels = "pack:2 numa:1 core:32 pu:2";
    Synthetic machine(linux_order ? linux_numbered(levels, 64, 2) : levels);
    ASSERT_TRUE(machine.loaded());
    std::vector<uint32_t> cpus(128);
    ASSERT_EQ(group_processors(machine.get(), machine.all(), cpus.data(), 128), 128u);
    std::vector<int> groups_on_core(64, 0);
    for (int g = 0; g < 128; ++g) {
      const int core = machine.core_of(cpus[g]);
      ASSERT_GE(core, 0);
      // Groups 0-63 one to a core, package 0's cores first; 64-127 the second threads.
      EXPECT_EQ(core, g % 64) << "group " << g;
      EXPECT_EQ(machine.package_of(cpus[g]), (g % 64) / 32) << "group " << g;
      EXPECT_EQ(groups_on_core[core]++, g / 64) << "group " << g;
    }
    if (linux_order) {
      for (uint32_t g = 0; g < 128; ++g) EXPECT_EQ(cpus[g], g);  // the plain order
    } else {
      EXPECT_EQ(cpus[1], 2u);  // not 1: core 0's second thread
      EXPECT_EQ(cpus[64], 1u);
    }
  }
}

TEST(PlacementPlan, GroupsOnFourProcessorsAndOnSmt4) {
  Synthetic four("pack:1 numa:1 core:4 pu:1");
  ASSERT_TRUE(four.loaded());
  uint32_t cpus[4];
  ASSERT_EQ(group_processors(four.get(), four.all(), cpus, 4), 4u);
  EXPECT_EQ(std::vector<uint32_t>(cpus, cpus + 4), (std::vector<uint32_t>{0, 1, 2, 3}));

  // SMT 4 numbered core by core (POWER): every core's first thread, then second, ...
  Synthetic smt4("pack:1 numa:1 core:2 pu:4");
  ASSERT_TRUE(smt4.loaded());
  uint32_t eight[8];
  ASSERT_EQ(group_processors(smt4.get(), smt4.all(), eight, 8), 8u);
  EXPECT_EQ(std::vector<uint32_t>(eight, eight + 8),
            (std::vector<uint32_t>{0, 4, 1, 5, 2, 6, 3, 7}));

  // Only as many as asked.
  ASSERT_EQ(group_processors(smt4.get(), smt4.all(), eight, 3), 3u);
  EXPECT_EQ(eight[2], 1u);
}

TEST(PlacementPlan, PlacementNeverReservesAndTurnsAvoidTheGroupsProcessors) {
  Synthetic big(linux_numbered("pack:4 numa:1 core:32 pu:2", 128, 2));
  ASSERT_TRUE(big.loaded());
  Planned p(big, options_with(kYes, "", "0,1|2,worker*|*"));
  EXPECT_FALSE(p.plan.reserve);
  EXPECT_EQ(p.P(), 256);
  EXPECT_EQ(turns_of(p.plan), range(3, 255));  // groups on 0, 1, 2
  EXPECT_EQ(p.sampler(), "3-255");

  Synthetic four("pack:1 numa:1 core:4 pu:1");
  ASSERT_TRUE(four.loaded());
  Planned three(four, options_with(kAuto, "", "0|1|2"));
  EXPECT_EQ(turns_of(three.plan), range(3, 3));
  Planned all(four, options_with(kAuto, "", "0|1|2|3"));  // every processor has a group
  EXPECT_EQ(turns_of(all.plan), range(0, 3));
  Planned malformed(four, options_with(kAuto, "", "0||1"));  // the runtime places nothing
  EXPECT_EQ(turns_of(malformed.plan), range(0, 3));

  Synthetic two_by_two("pack:1 numa:1 core:2 pu:2");
  ASSERT_TRUE(two_by_two.loaded());
  Planned pair(two_by_two, options_with(kAuto, "", "a|b"));  // on 0 and 2, one a core
  EXPECT_EQ(turns_of(pair.plan), (std::vector<unsigned>{1, 3}));
}

TEST(PlacementOrder, OrdersHardwareThreadsAfterEveryCoresFirst) {
  // Three cores of 1, 2 and 3 hardware threads (a hybrid machine), numbered in turn.
  rt::PlacementProcessor processors[6] = {{0, 7, 0}, {1, 8, 0}, {2, 9, 0},
                                          {3, 8, 0}, {4, 9, 0}, {5, 9, 0}};
  rt::PlacementProcessor scratch[6];
  rt::order_for_groups(processors, 6, scratch);
  std::vector<uint32_t> order;
  for (const auto& p : processors) order.push_back(p.cpu);
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));

  rt::PlacementProcessor adjacent[6] = {{0, 0, 0}, {1, 0, 0}, {2, 1, 0},
                                        {3, 1, 0}, {4, 2, 0}, {5, 2, 0}};
  rt::order_for_groups(adjacent, 6, scratch);
  order.clear();
  for (const auto& p : adjacent) order.push_back(p.cpu);
  EXPECT_EQ(order, (std::vector<uint32_t>{0, 2, 4, 1, 3, 5}));
}

}  // namespace
}  // namespace quartz::sampler
