// A procedure's entry and exit on the calling thread's profile stack (DESIGN.md §3 "Hot
// path"), for both ways in: the compiler's hooks (hooks.cpp) and patched entries
// (patched_entries.cpp).
//
// Entry: one TLS load, push (folding an immediate repeat), count the call edge. Exit: one
// TLS load, pop. No lock, no read-modify-write atomic, no allocation, no system call once
// the thread has its block. The call counter of the edge is cached in the caller's stack
// entry (a loop calling the same procedure finds it there), and every rare case leaves
// through a tail call, so the common path saves no registers.
#pragma once

#include "runtime/runtime.h"
#include "support/attributes.h"

namespace quartz::hooks {

// The rare ways of an entry (hooks.cpp): an edge the caller's entry did not cache, and the
// first event of a thread (or one the runtime must ignore).
QUARTZ_NOINLINE void enter_new_edge(rt::ThreadBlock* block, uintptr_t callee, uintptr_t below,
                                    rt::StackEntry* below_entry, rt::StackEntry* slot);
QUARTZ_NOINLINE void enter_unregistered(uintptr_t callee);

QUARTZ_ALWAYS_INLINE void enter_procedure(rt::ThreadBlock* block, uintptr_t callee) {
  if (QUARTZ_UNLIKELY(block == nullptr)) return enter_unregistered(callee);
  const rt::ProfileStack::Push push = block->stack.begin_push(callee, rt::kProcedureTag);
  rt::StackEntry* caller = push.below_entry;
  if (QUARTZ_UNLIKELY(caller == nullptr)) {
    return enter_new_edge(block, callee, push.below, push.below_entry, push.slot);
  }
  rt::CallEdgeSlot* edge = caller->child_edge;
  if (QUARTZ_UNLIKELY(edge->callee.load(std::memory_order_relaxed) != callee)) {
    return enter_new_edge(block, callee, push.below, push.below_entry, push.slot);
  }
  rt::bump(edge->calls);
  block->stack.finish_push(push, callee, rt::kProcedureTag);
}

QUARTZ_ALWAYS_INLINE void exit_procedure(rt::ThreadBlock* block, uintptr_t callee) {
  if (QUARTZ_UNLIKELY(block == nullptr)) return;  // nothing of this thread is on record
  block->stack.pop_procedure(callee);
}

}  // namespace quartz::hooks
