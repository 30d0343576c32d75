// The processors the sampler takes in turns when it shares them with the program
// (sampler/measure/placement.h decides them); its capture builder runs on them too.
#pragma once

#include <cstdint>

namespace quartz::sampler {

// The processors a sampler that shares them with the program takes in turn (none when it
// has its own). Bound to one of them for good, it would take its whole cost (~6% of a
// processor) from the thread there, which would end last while the others idle. In turns,
// each pays alike.
struct SharedProcessors {
  static constexpr uint32_t kMax = 1024;  // CPU_SETSIZE
  uint16_t cpus[kMax];
  uint32_t count;
  uint32_t next;
};

}  // namespace quartz::sampler
