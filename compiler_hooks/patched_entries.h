// Patched entries (entry_sleds.h, patched_entries.cpp): turned on at start-up by the
// composition root.
#pragma once

#include "compiler_hooks/entry_sleds.h"

namespace quartz::hooks {

// Patches every loaded object's entries to the trampolines (or those `procedures` selects,
// entry_sleds.h) and starts taking return addresses on the calling thread (the main one;
// threads the runtime starts learn their stacks as they start). Before the program starts
// threads of its own.
QUARTZ_NOINSTR SledCounts start_patched_entries(const char* procedures);

// A procedure of no work whose entry is patched on, made once in memory of its own: the
// calibration calls it to measure what a patched call costs. Null when it cannot be made.
QUARTZ_NOINSTR void (*patched_probe())();

}  // namespace quartz::hooks
