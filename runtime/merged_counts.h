// The runtime's counts with running and finished threads merged: the one place that adds
// a running thread's own counters (in its block) to what finished threads left in the
// process-wide tables (their records, the object registry, the call graph). The capture
// writer gathers once per capture, then asks.
//
// A gather is one pass over the thread registry, each block's tables read once, however
// many threads and objects there are; answers are lookups. Scratch lives in mapped memory,
// reserved once: no malloc (the sampler's rule).
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/runtime.h"
#include "runtime/thread_counters.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::rt {

// A thread's own counters, however far it has got.
struct ThreadTotals {
  uint64_t calls = 0;
  uint64_t overflows = 0;
  uint64_t mismatches = 0;
  uint64_t blocked_ticks = 0;
  uint64_t spinning_ticks = 0;
  uint32_t depth = 0;  // profile stack depth; 0 once folded
};
QUARTZ_NOINSTR ThreadTotals block_totals(const ThreadBlock& block);

struct ObjectTotals {
  uint64_t acquisitions = 0;
  uint64_t contended = 0;
  uint64_t wait_ticks = 0;
};

class MergedCounts {
 public:
  // Reserves the scratch; call once `runtime` is configured. False without memory.
  QUARTZ_NOINSTR bool reserve(const Runtime& runtime);

  // Reads the counters of every thread in the registry (running, or ended and not yet
  // retired). Call as the registry's attached reader, so that no block is folded between
  // the gather and the answers.
  QUARTZ_NOINSTR void gather(Runtime& runtime);

  // Thread `index`'s totals: from its block while it has one, from its record once folded.
  QUARTZ_NOINSTR ThreadTotals thread(const ThreadRecord& record, uint32_t index) const;
  // The object at `address`: what finished threads left in `record` (null when the registry
  // had no room for it) plus the counts of the threads gathered.
  QUARTZ_NOINSTR ObjectTotals object(const Runtime& runtime, uintptr_t address,
                                     const ObjectRecord* record) const;
  // Profile-stack entries of the threads gathered (what is still open: procedures not
  // returned from, objects still waited for or held).
  QUARTZ_NOINSTR uint64_t open_stack_entries() const { return open_stack_entries_; }

  // Calls visit(caller, callee, calls) for every call edge: the process-wide table
  // (finished threads, spills), then each thread's own. An edge may come more than once.
  template <typename Visit>
  QUARTZ_NOINSTR static void for_each_edge(Runtime& runtime, Visit&& visit) {
    runtime.call_graph.for_each([&](const CallGraphRecord& r) {
      const uint64_t calls = r.calls.load(std::memory_order_relaxed);
      if (r.state.load(std::memory_order_acquire) != 2 || calls == 0) return;
      visit(r.caller.load(std::memory_order_relaxed), r.callee.load(std::memory_order_relaxed),
            calls);
    });
    runtime.threads.for_each([&](ThreadSlot& slot, SlotStatus) {
      const ThreadBlock* b = slot.block.load(std::memory_order_acquire);
      if (!b) return;
      b->edges.for_each_claimed([&](const CallEdgeSlot& s) {
        const uint64_t calls = s.calls.load(std::memory_order_relaxed);
        if (calls) {
          visit(s.caller.load(std::memory_order_relaxed), s.callee.load(std::memory_order_relaxed),
                calls);
        }
      });
    });
  }

 private:
  struct GatheredThread {
    ThreadTotals totals;
    uint32_t gathered;  // 1: totals hold this gather's reading of the thread's block
  };
  static constexpr uint32_t kUnregisteredLog2 = 10;

  support::MappedVector<GatheredThread> threads_;  // by thread index
  support::MappedVector<ObjectTotals>
      objects_;  // by the registry's order (ObjectRegistry::order_of)
  // Objects the registry had no room for, by address (a full table drops the rest).
  support::MappedVector<ObjectCountSlot> unregistered_slots_;
  ObjectCountTable unregistered_;
  uint64_t open_stack_entries_ = 0;
};

}  // namespace quartz::rt
