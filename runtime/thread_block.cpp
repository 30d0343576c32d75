#include "runtime/thread_block.h"

#include <new>

namespace quartz::rt {
namespace {
constexpr size_t align_up(size_t n, size_t a) {
  return (n + a - 1) & ~(a - 1);
}
constexpr size_t header_bytes() {
  return align_up(sizeof(ThreadBlock), support::kCacheLine);
}
}  // namespace

size_t ThreadBlock::bytes_for(const BlockGeometry& g) {
  return header_bytes() + size_t{g.stack_capacity} * sizeof(StackEntry) +
         (size_t{1} << g.call_edges_log2) * sizeof(CallEdgeSlot) +
         align_up(ObjectCountTable::bytes_for(g.objects_log2), alignof(StackEntry)) +
         (g.trace_capacity
              ? align_up(TraceQueue::bytes_for(g.trace_capacity), support::kCacheLine) +
                    support::kCacheLine
              : 0);
}

ThreadBlock* ThreadBlock::create_in(void* memory, const BlockGeometry& g) {
  auto* bytes = static_cast<char*>(memory);
  auto* block = new (memory) ThreadBlock();
  char* next = bytes + header_bytes();
  auto* entries = reinterpret_cast<StackEntry*>(next);
  next += size_t{g.stack_capacity} * sizeof(StackEntry);
  auto* edges = reinterpret_cast<CallEdgeSlot*>(next);
  next += (size_t{1} << g.call_edges_log2) * sizeof(CallEdgeSlot);
  auto* objects = reinterpret_cast<ObjectCountSlot*>(next);
  block->stack.reset(entries, g.stack_capacity);
  block->edges.reset(edges, g.call_edges_log2);
  block->objects.reset(objects, g.objects_log2);
  if (g.trace_capacity) {
    next += ObjectCountTable::bytes_for(g.objects_log2);
    void* queue =
        reinterpret_cast<void*>(align_up(reinterpret_cast<uintptr_t>(next), support::kCacheLine));
    block->trace = TraceQueue::create_in(queue, g.trace_capacity);
  }
  return block;
}

void ThreadBlock::reuse() {
  stack.clear();
  state.store(ThreadState::busy, std::memory_order_relaxed);
  blocked_ticks.store(0, std::memory_order_relaxed);
  spinning_ticks.store(0, std::memory_order_relaxed);
  spilled_events.store(0, std::memory_order_relaxed);
  index = parent_index = 0;
  tid.store(0, std::memory_order_relaxed);
  self = pthread_t{};
  start_routine = nullptr;
  start_arg = nullptr;
  start_cpu_ns = 0;
  clocks_from_birth = false;
  record = nullptr;
  own_base = 0;
  trace_wait_mutex = 0;
  trace_wait_record = nullptr;
  trace_last_section = trace_previous_section = trace_signal_from = TracedSection{};
  trace_signal_record = nullptr;
  exit_cpu_ns.store(0, std::memory_order_relaxed);
  exit_runqueue_ns.store(0, std::memory_order_relaxed);
  trace_cpu_ticks = 0;
  if (trace) trace->reset();  // drained by the sampler before it retired the block
}

}  // namespace quartz::rt
