// -finstrument-functions entry and exit hooks (DESIGN.md §3 "Hot path").
//
// Enter: one TLS load, push (folding an immediate repeat), count the call edge. Exit: one
// TLS load, pop. No lock, no read-modify-write atomic, no allocation, no system call once
// the thread has its block; the first event of a thread registers it (slow path).
#include "runtime/attributes.h"
#include "runtime/runtime.h"

using namespace quartz::rt;

namespace {
// A call edge with no room in the thread's own table goes to the process-wide one.
QUARTZ_NOINLINE void spill_call(ThreadBlock* block, uintptr_t caller, uintptr_t callee) {
  bump(block->spilled_events);
  runtime().call_graph.add(caller, callee, 1);
}
}  // namespace

QUARTZ_EXPORT void __cyg_profile_func_enter(void* function, void* /*call_site*/) {
  ThreadBlock* block = t_local.block;
  if (QUARTZ_UNLIKELY(block == nullptr)) {
    block = current_block_slow();
    if (block == nullptr) return;
  }
  const auto callee = reinterpret_cast<uintptr_t>(function);
  const uintptr_t caller = block->stack.push(callee, kProcedureTag);
  if (QUARTZ_UNLIKELY(!block->edges.count(caller, callee))) spill_call(block, caller, callee);
}

QUARTZ_EXPORT void __cyg_profile_func_exit(void* function, void* /*call_site*/) {
  ThreadBlock* block = t_local.block;
  if (QUARTZ_UNLIKELY(block == nullptr)) return;  // nothing of this thread is on record
  block->stack.pop_procedure(reinterpret_cast<uintptr_t>(function));
}
