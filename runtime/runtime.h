// The runtime's process-wide state and each thread's way into it.
//
// Life cycle (STYLE 9), moved with compare-and-swap:
//   uninitialised -> initialising -> running -> finishing -> finished
//                                 \-> disabled (QUARTZ_DISABLE, or a required symbol missing)
// Initialisation happens in the library constructor or on the first hook or wrapper call,
// whichever comes first, so instrumented code running before our constructor is counted.
// After finishing, hooks and wrappers keep working: blocks are never released.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/call_graph.h"
#include "runtime/object_registry.h"
#include "runtime/options.h"
#include "runtime/thread_block.h"
#include "runtime/thread_history.h"
#include "runtime/thread_registry.h"
#include "support/attributes.h"
#include "support/clock.h"

namespace quartz::rt {

enum class Lifecycle : uint32_t {
  uninitialised = 0,
  initialising,
  running,
  finishing,
  finished,
  disabled,
};

// How the program's OpenMP runtime is seen (the capture's "openmp" key): GNU libgomp's
// entry points interposed, LLVM libomp's tools interface, or not (the program's own OMPT
// tool took it: its waits look like work).
enum class OpenmpView : uint8_t { none, libgomp, ompt, program_tool };
// Whether ITT notifications (oneTBB's) reach libquartz (the capture's "itt" key): a runtime
// handed its table to the collector, or the program named its own (INTEL_LIBITTNOTIFY64).
enum class IttView : uint8_t { none, collector, program_collector };

struct Runtime {
  std::atomic<Lifecycle> lifecycle{Lifecycle::uninitialised};
  support::TickCalibration clock{};
  Options options{};
  ThreadRegistry threads{};
  ObjectRegistry objects{};
  CallGraph call_graph{};
  ThreadHistory history{};
  // Set while a reader (the sampler) wants each thread's CPU clocks read as the thread
  // ends: the kernel forgets them once it is gone.
  std::atomic<bool> exit_cpu_wanted{false};
  // When the program ended (exit, return from main: finish()), monotonic ns; 0 before.
  // The run's elapsed time ends here (docs/design.md "Elapsed time").
  std::atomic<uint64_t> end_ns{0};
  // Patched entries (compiler_hooks/patched_entries.h) turned on at start-up, and those
  // listed that could not be.
  uint32_t patched_entries = 0;
  uint32_t refused_entries = 0;
  std::atomic<OpenmpView> openmp{OpenmpView::none};
  std::atomic<IttView> itt{IttView::none};
};

// Process-wide state, constant-initialised static storage, never destroyed.
extern constinit Runtime g_runtime;
QUARTZ_ALWAYS_INLINE Runtime& runtime() {
  return g_runtime;
}

// Per-thread state reachable before the thread has a block. Initial-exec TLS: one
// %fs-relative load, no call (global-dynamic TLS costs ~8 ns more per hook).
struct ThreadLocal {
  ThreadBlock* block;
  ThreadSlot* slot;
  uint8_t in_runtime;  // recursion guard: set while the runtime works on this thread
  uint8_t ignored;     // never profile: a runtime thread, an ended thread, or no memory
};
extern __thread ThreadLocal t_local __attribute__((tls_model("initial-exec")));

// The calling thread's block, registering the thread on its first event. Null when this
// thread is not profiled, or is inside the runtime already.
QUARTZ_NOINSTR ThreadBlock* current_block_slow();
QUARTZ_ALWAYS_INLINE ThreadBlock* current_block() {
  ThreadBlock* block = t_local.block;
  return QUARTZ_LIKELY(block != nullptr) ? block : current_block_slow();
}

// Counts one call from `caller` to `callee` on `block`'s thread: in its own table, or
// process-wide when that is full or a signal handler interrupted an insertion into it (a
// handler's hook nested in the owner's never inserts beside it). Returns the edge's slot
// for the caller to cache, or null when counted process-wide.
QUARTZ_ALWAYS_INLINE CallEdgeSlot* count_call(ThreadBlock* block, uintptr_t caller,
                                              uintptr_t callee) {
  CallEdgeSlot* edge = nullptr;
  if (!block->inserting_edge) {
    block->inserting_edge = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    edge = block->edges.count(caller, callee);
    std::atomic_signal_fence(std::memory_order_seq_cst);
    block->inserting_edge = false;
  }
  if (edge == nullptr) {
    bump(block->spilled_events);
    runtime().call_graph.add(caller, callee, 1);
  }
  return edge;
}

// True once the runtime is usable (real functions resolved); initialises on first call.
QUARTZ_NOINSTR bool ensure_initialized();

// Monotonic nanoseconds, for thread lifetimes (waits use the cheaper support::ticks()).
QUARTZ_NOINSTR uint64_t now_ns();

// Reads the calling thread's CPU clock into its block as its work ends, once, when a reader
// wants it: one system call. Called when the start routine returns (so the figure ends
// where the thread's own work does) and, for the other ways out, by the exit key's
// destructor.
QUARTZ_NOINSTR void record_end_cpu(ThreadBlock& block);

// Starts the run's clock again, and the calling thread's CPU clock with it. For the
// program's first thread once the profiler has made it wait (patching, calibration): that
// wait is not the program's time. Call it before any reader of the clock starts. A thread
// created before (this one among them) is taken to begin with the run
// (sampler/measure/thread_clocks.cpp, presence; the capture's creation times).
QUARTZ_NOINSTR void restart_run_clock();

// Marks the calling thread as the runtime's own: never profiled, wrappers pass through.
QUARTZ_NOINSTR void mark_runtime_thread();

// Moves a retired block's counters into the process-wide tables and its thread record.
QUARTZ_NOINSTR void fold_block(ThreadBlock& block);

// Ends the run once, from whichever thread gets there first (running -> finishing ->
// finished): marks the end in the trace, then calls `stop_readers` (the composition root
// stops the sampler, which writes the final capture) with the recursion guard held and
// errno kept. Blocks stay usable: other threads may still be working.
QUARTZ_NOINSTR void finish(void (*stop_readers)());

// Names libquartz's ITT collector (itt_collector.cpp) where the runtimes look for one,
// unless the program named its own; at start-up, before the program's first notification.
QUARTZ_NOINSTR void offer_itt_collector();

// Before fork(), in the forking thread: waits (briefly, never forever) until no thread is
// inside libunwind and lets none start, so that the child does not inherit libunwind's
// locks held by a thread that does not exist there. after_fork_in_parent and
// after_fork_in_child let walks start again.
QUARTZ_NOINSTR void before_fork();
QUARTZ_NOINSTR void after_fork_in_parent();

// In a forked child, first thing: only the calling thread exists; the parent's counts are
// not the child's to report. Its stack stays (the child is still inside those procedures).
QUARTZ_NOINSTR void after_fork_in_child();

// Registers a thread created through our pthread_create: claims a block that inherits
// the creator's profile stack. Null when the child cannot be profiled.
QUARTZ_NOINSTR ThreadSlot* prepare_child(ThreadBlock* creator);
// Runs first in the child: installs the block claimed by prepare_child.
QUARTZ_NOINSTR void start_child(ThreadSlot* slot);

}  // namespace quartz::rt
