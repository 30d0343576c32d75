// Where the sampler and the program run (DESIGN.md §3 "Sampler"), applied with hwloc on
// the sampler thread at start-up as placement_plan.h decides: with a reserved core
// (--reserve, or 8 or more cores) the program is moved off it and the sampler bound to it;
// otherwise the sampler shares the processors, bound to one at a time, each in turn.
#pragma once

#include <cstdint>

#include "runtime/options.h"
#include "sampler/run_info.h"
#include "sampler/shared_processors.h"
#include "support/attributes.h"

namespace quartz::sampler {

// Binds the calling thread (the sampler) and, when reserving, the program; fills the run
// section's cores and topology, and `turns` when the sampler shares the processors.
// Returns P, the processors the program may use.
QUARTZ_NOINSTR uint32_t place_sampler(const rt::Options& options, RunInfo& info,
                                      SharedProcessors& turns);

// Moves the calling thread (the sampler) to the next of the shared processors.
QUARTZ_NOINSTR void take_next_turn(SharedProcessors& turns);

}  // namespace quartz::sampler
