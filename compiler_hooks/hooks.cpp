// The compiler's entry and exit hooks (-finstrument-functions and clang's
// -finstrument-functions-after-inlining), and the rare ways of every procedure entry.
#include "compiler_hooks/procedure_events.h"

using namespace quartz::rt;

namespace quartz::hooks {
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

}  // namespace

// The caller's entry did not cache this edge: count it (count_call) and cache its slot for
// the next call.
// (The push arrives field by field: a struct of three would travel through memory.)
//
// A signal handler may run instrumented code anywhere in here or in the enter hook: the
// cache is one word (the edge's slot, whose key says whose counter it is), so a nested
// hook never pairs a callee with another edge's counter.
void enter_new_edge(ThreadBlock* block, uintptr_t callee, uintptr_t below, StackEntry* below_entry,
                    StackEntry* slot) {
  const uintptr_t caller = below_entry != nullptr ? block->stack.caller_at(below_entry) : below;
  CallEdgeSlot* edge = count_call(block, caller, callee);
  if (edge != nullptr && below_entry != nullptr) below_entry->child_edge = edge;
  block->stack.finish_push(ProfileStack::Push{below, below_entry, slot}, callee, kProcedureTag);
  note_routine(block, callee, slot);
}

void enter_unregistered(uintptr_t callee) {
  ThreadBlock* block = current_block_slow();
  if (block == nullptr) return;
  const ProfileStack::Push push = block->stack.begin_push(callee, kProcedureTag);
  enter_new_edge(block, callee, push.below, push.below_entry, push.slot);
}

}  // namespace quartz::hooks

QUARTZ_EXPORT void __cyg_profile_func_enter(void* function, void* /*call_site*/) {
  quartz::hooks::enter_procedure(t_local.block, reinterpret_cast<uintptr_t>(function));
}

QUARTZ_EXPORT void __cyg_profile_func_exit(void* function, void* /*call_site*/) {
  quartz::hooks::exit_procedure(t_local.block, reinterpret_cast<uintptr_t>(function));
}
