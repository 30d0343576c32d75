// -finstrument-functions entry and exit hooks (DESIGN.md §3 "Hot path").
//
// Enter: one TLS load, push (folding an immediate repeat), count the call edge. Exit: one
// TLS load, pop. No lock, no read-modify-write atomic, no allocation, no system call once
// the thread has its block. The call counter of the edge is cached in the caller's stack
// entry (a loop calling the same procedure finds it there), and every rare case leaves
// through a tail call, so the common path saves no registers.
#include "runtime/attributes.h"
#include "runtime/runtime.h"

using namespace quartz::rt;

namespace {

// Keeps the bottom of the thread's own stack in its record (ThreadRecord::routines) until
// it first reaches kThreadRoutines deep: offline, the first of the program's procedures
// there names a thread std::thread started. Here, on the path of a new edge: a call that
// goes the fast way repeats the callee last noted at its depth.
QUARTZ_ALWAYS_INLINE void note_routine(ThreadBlock* block, uintptr_t callee, StackEntry* slot) {
  ThreadRecord* record = block->record;
  if (slot == nullptr || record == nullptr) return;
  const uint32_t own = block->stack.depth() - 1 - block->own_base;
  if (own >= kThreadRoutines) return;
  if (record->routine_count.load(std::memory_order_relaxed) == kThreadRoutines) return;
  record->routines[own].store(callee, std::memory_order_relaxed);
  record->routine_count.store(own + 1, std::memory_order_relaxed);
}

// The caller's entry did not cache this edge: count it (count_call) and cache its slot for
// the next call.
// (The push arrives field by field: a struct of three would travel through memory.)
//
// A signal handler may run instrumented code anywhere in here or in the enter hook: the
// cache is one word (the edge's slot, whose key says whose counter it is), so a nested
// hook never pairs a callee with another edge's counter.
QUARTZ_NOINLINE void enter_new_edge(ThreadBlock* block, uintptr_t callee, uintptr_t below,
                                    StackEntry* below_entry, StackEntry* slot) {
  CallEdgeSlot* edge = count_call(block, below, callee);
  if (edge != nullptr && below_entry != nullptr) below_entry->child_edge = edge;
  block->stack.finish_push(ProfileStack::Push{below, below_entry, slot}, callee, kProcedureTag);
  note_routine(block, callee, slot);
}

// The first event of a thread, or one the runtime must ignore.
QUARTZ_NOINLINE void enter_unregistered(uintptr_t callee) {
  ThreadBlock* block = current_block_slow();
  if (block == nullptr) return;
  const ProfileStack::Push push = block->stack.begin_push(callee, kProcedureTag);
  enter_new_edge(block, callee, push.below, push.below_entry, push.slot);
}

}  // namespace

QUARTZ_EXPORT void __cyg_profile_func_enter(void* function, void* /*call_site*/) {
  const auto callee = reinterpret_cast<uintptr_t>(function);
  ThreadBlock* block = t_local.block;
  if (QUARTZ_UNLIKELY(block == nullptr)) return enter_unregistered(callee);
  const ProfileStack::Push push = block->stack.begin_push(callee, kProcedureTag);
  StackEntry* caller = push.below_entry;
  if (QUARTZ_UNLIKELY(caller == nullptr)) {
    return enter_new_edge(block, callee, push.below, push.below_entry, push.slot);
  }
  CallEdgeSlot* edge = caller->child_edge;
  if (QUARTZ_UNLIKELY(edge->callee.load(std::memory_order_relaxed) != callee)) {
    return enter_new_edge(block, callee, push.below, push.below_entry, push.slot);
  }
  bump(edge->calls);
  block->stack.finish_push(push, callee, kProcedureTag);
}

QUARTZ_EXPORT void __cyg_profile_func_exit(void* function, void* /*call_site*/) {
  ThreadBlock* block = t_local.block;
  if (QUARTZ_UNLIKELY(block == nullptr)) return;  // nothing of this thread is on record
  block->stack.pop_procedure(reinterpret_cast<uintptr_t>(function));
}
