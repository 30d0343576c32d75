// Where the sampler and the program run (DESIGN.md §3 "Sampler"), decided with hwloc on
// the sampler thread at start-up: with a reserved core (--reserve, or 8 or more
// processors) the program is moved off it and the sampler bound to it; otherwise the
// sampler shares the processors, bound to the last one.
#pragma once

#include <cstdint>

#include "runtime/attributes.h"
#include "runtime/options.h"
#include "sampler/capture_writer.h"

namespace quartz::sampler {

// Binds the calling thread (the sampler) and, when reserving, the program; fills the run
// section's cores and topology. Returns P, the processors the program may use.
QUARTZ_NOINSTR uint32_t place_sampler(const rt::Options& options, RunInfo& info);

}  // namespace quartz::sampler
