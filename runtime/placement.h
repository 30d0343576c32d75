// `quartz run --placement "0,1|2,worker"` (QUARTZ_PLACEMENT): pins the program's threads to
// cores as a grouping says, so that a prediction of `quartz predict --group` can be checked
// against reality and a recommended grouping applied. The syntax is
// format/placement_syntax.h's. Group i runs on the i-th processor the program may use; the
// first group that names a thread takes it; threads no group names are left alone. A
// thread is placed when it starts and again when it is named.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt {

// Parses the spec and reads the processors the program may use. False (with a warning on
// stderr) when the spec is malformed or names more groups than there are processors; then
// nothing is placed. Never allocates.
QUARTZ_NOINSTR bool configure_placement(const char* spec);
// Pins thread `tid` (0: the caller) as its index and name say, if a group names it.
QUARTZ_NOINSTR void place_thread(pid_t tid, uint32_t index, const char* name);
// The processors the program could use before a placement pinned its threads, into `*out`;
// false when no placement is active. The sampler counts P from these: its own thread, made
// by a pinned main thread, inherits the pin.
QUARTZ_NOINSTR bool processors_before_placement(cpu_set_t* out);

}  // namespace quartz::rt
