// The parallel regions LLVM's libomp runs, by the call that started them (openmp_tool.cpp).
// libomp reports a worker's wait at a region's end and its wait for the next region as one
// wait, which ends only when the next region starts: the part after the region ended is the
// worker's idle time, which the sampler tells apart by asking whether the region still runs
// (sampler/measure/stack_reader.cpp). Lock-free: masters write, the sampler reads.
#pragma once

#include <atomic>
#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt::openmp {

// An object of ours (not the program's), named at its first use (openmp_team.h): a name
// given earlier would list it unused.
struct OwnObject {
  char address;
  std::atomic<bool> named;
  const char* name;
};
// What a worker waits for between regions.
extern constinit OwnObject g_idle;

// A region started at `site` starts or ends an instance (regions started at one site may
// run at once on several masters). Sites past the table's room are never over.
QUARTZ_NOINSTR void region_started(uintptr_t site);
QUARTZ_NOINSTR void region_ended(uintptr_t site);
// True when `site` started regions libomp reported and none of them runs now.
QUARTZ_NOINSTR bool region_over(uintptr_t site);

}  // namespace quartz::rt::openmp
