// Overhead compensation (DESIGN.md §3): what the runtime's own work costs the threads
// that do it, measured once at start-up on scratch blocks, so that nothing is recorded.
// Each measurement is the best of 5 rounds.
#pragma once

#include <cstdint>

#include "runtime/thread_block.h"
#include "support/attributes.h"

namespace quartz::sampler {

// One enter/exit pair of the compiler hooks, called through pointers as the program does.
QUARTZ_NOINSTR double calibrate_hook_pair_ns(const rt::BlockGeometry& geometry);
// One call of a procedure whose entry is patched (compiler_hooks/patched_entries.h): the
// entry trampoline, a return address taken and given back. 0 when none can be made.
QUARTZ_NOINSTR double calibrate_patched_call_ns(const rt::BlockGeometry& geometry);
// One trace event recorded by a thread (Wolf et al.'s compensation of trace timestamps).
QUARTZ_NOINSTR double calibrate_trace_event_ns(const rt::BlockGeometry& geometry);
// A thread reading its own CPU clock (rt::record_cpu).
QUARTZ_NOINSTR double calibrate_cpu_read_ns();

}  // namespace quartz::sampler
