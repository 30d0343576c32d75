// Everything the runtime keeps for one application thread (DESIGN.md §3 "Hot path").
//
// Layout: the first cache line holds what the hooks and lock wrappers write on every event
// (profile stack control word, call-edge table handle, thread state), so a thread's events
// touch only its own lines and nothing is shared with other threads. The sampler reads
// these lines; it never writes them. Blocks live in mapped memory, are reused through the
// registry, and are never unmapped.
#pragma once

#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/profile_stack.h"
#include "runtime/thread_counters.h"
#include "runtime/thread_history.h"
#include "runtime/trace_queue.h"
#include "support/attributes.h"

namespace quartz::rt {

struct ObjectRecord;

// A mutex's critical section, by the mutex and its acquisition number (trace_events.h).
struct TracedSection {
  uintptr_t mutex = 0;
  uint32_t acquisition = 0;  // 0: none
  bool operator==(const TracedSection&) const = default;
};

// What the runtime knows of a thread's state (DESIGN.md §2). `ready` is not here: whether
// a busy thread actually has a processor is measured by the sampler from CPU clocks.
enum class ThreadState : uint8_t { busy = 0, spinning, blocked };

inline constexpr uint64_t kExitRunqueueUnknown = ~uint64_t{0};

// Sizes of the per-thread arrays, fixed for the life of the process.
struct BlockGeometry {
  uint32_t stack_capacity = 512;
  uint32_t call_edges_log2 = 10;
  uint32_t objects_log2 = 8;
  uint32_t trace_capacity = 0;  // events per thread queue; 0: not tracing
};

struct alignas(support::kCacheLine) ThreadBlock {
  // Offsets are checked below: the hot fields must share the first line.
  // -- Line 0: written by the owner on every event. ----------------------------------
  ProfileStack stack;
  CallEdgeTable edges;
  std::atomic<ThreadState> state{ThreadState::busy};
  std::atomic<pid_t> tid{0};  // here because the mutex wrapper compares it with the owner

  // -- Line 1: written by the owner on synchronization operations. -------------------
  alignas(support::kCacheLine) ObjectCountTable objects;
  // Measured around waits that block in the kernel whenever they wait (conditions,
  // barriers, semaphores, joins) and around spin regions; lock waits are left to the
  // sampler (see wait_for_object).
  std::atomic<uint64_t> blocked_ticks{0};
  std::atomic<uint64_t> spinning_ticks{0};
  std::atomic<uint64_t> spilled_events{0};  // counts that went to the process-wide tables
  bool inserting_edge = false;              // the enter hook is adding to `edges` (signal nesting)
  // Calls of sched_yield, wrapping: a thread that yields again and again between two
  // snapshots polls (sampler/measure/snapshots.cpp). 32 bits, in the padding before `trace`:
  // these fields fill two lines exactly.
  std::atomic<uint32_t> yields{0};
  TraceQueue* trace = nullptr;   // when tracing: this thread's synchronization events
  uint64_t trace_cpu_ticks = 0;  // when the thread last read its CPU clock for the trace

  // -- Line 2: identity, written before the block is published. ------------------------
  alignas(support::kCacheLine) uint32_t index = 0;  // creation order; 0 is the main thread
  uint32_t parent_index = 0;
  pthread_t self{};
  void* (*start_routine)(void*) = nullptr;
  void* start_arg = nullptr;
  // The thread's CPU clock when it joined the run: 0 for a thread created through our
  // pthread_create (its clocks start with it, so all it uses is the run's); read at
  // registration for one we did not see created (the main thread).
  uint64_t start_cpu_ns = 0;
  bool clocks_from_birth = false;  // its CPU and run-queue clocks started in the run
  // Where the enter hook notes the thread's own first procedures (ThreadRecord::routines),
  // and the depth its own stack starts at (above the procedures it inherited).
  ThreadRecord* record = nullptr;
  uint32_t own_base = 0;
  // Written as the thread ends, for a reader that can no longer ask the kernel: its own CPU
  // clock (0: not read) and its run-queue time from schedstat (kExitRunqueueUnknown: not
  // read, the thread was too short-lived to pay for it).
  std::atomic<uint64_t> exit_cpu_ns{0};
  std::atomic<uint64_t> exit_runqueue_ns{0};
  // When tracing (trace_events.h trace_lock_acquired): the mutex and the condition's record
  // of the thread's latest condition wait; the critical sections it entered last and
  // before; the record of the condition it signalled last and the section that signal came
  // from. A record keeps its object's address for the whole run.
  uintptr_t trace_wait_mutex = 0;
  const ObjectRecord* trace_wait_record = nullptr;
  TracedSection trace_last_section, trace_previous_section, trace_signal_from;
  ObjectRecord* trace_signal_record = nullptr;

  // Memory needed for a block of this geometry, trailing arrays included.
  QUARTZ_NOINSTR static size_t bytes_for(const BlockGeometry& geometry);
  // Constructs a block in `memory` (zeroed, bytes_for(geometry) long).
  QUARTZ_NOINSTR static ThreadBlock* create_in(void* memory, const BlockGeometry& geometry);
  // Prepares a retired block for a new thread: empty stack, busy, identity cleared.
  // Counters must already have been folded and cleared.
  QUARTZ_NOINSTR void reuse();
};
static_assert(offsetof(ThreadBlock, tid) + sizeof(pid_t) <= support::kCacheLine,
              "the fields written on every event must share one cache line");

}  // namespace quartz::rt
