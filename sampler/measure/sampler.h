// The sampler thread (DESIGN.md §3 "Sampler"): created with the real pthread_create, so it
// is never profiled; bound with hwloc to a reserved core when reserving (the program then
// runs on the others), otherwise sharing the processors and sleeping between snapshots.
//
// Every period it reads every thread's state and stack (stack_reader.h) into a window;
// every CPU window it reads each thread's processor and run-queue time (thread_cpu.h) and
// attributes the window (attribution.h); every checkpoint it rewrites the capture
// (capture_writer.h). It never blocks the program: it reads without locks and waits on
// the clock.
#pragma once

#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt {
struct Runtime;
}

namespace quartz::sampler {

class OverheadControl;

// Starts sampling (runtime.options.output names the capture), with `overhead` measuring
// what the runtime's work costs and keeping it to its budget (overhead_control.h; it must
// outlive the run). False if it cannot.
QUARTZ_NOINSTR bool start(rt::Runtime& runtime, OverheadControl& overhead);
// Takes a last snapshot, writes the final capture and ends the thread. Safe to call from
// any thread, once; does nothing when sampling never started. In a forked child of a
// sampled process, writes the child's counts alone (no samples) to runtime.options.output.
// Waits for the thread as long as it takes, or at most `wait_ns` when that is not 0 (the
// sampler then goes on alone; it ends with the process).
QUARTZ_NOINSTR void stop(uint64_t wait_ns = 0);
// In a forked child: the sampler thread is the parent's; forget it. The child is not
// sampled.
QUARTZ_NOINSTR void forget_after_fork();

}  // namespace quartz::sampler
