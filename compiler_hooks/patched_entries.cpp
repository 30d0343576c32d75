// Procedures entered through patched entries (entry_sleds.h): the entry trampoline pushes
// the procedure and takes its return address (runtime/return_stack.h); the return
// trampoline pops it and goes back to the original. docs/design.md "Patched entries".
//
// The trampolines keep every register a call may carry arguments or results in, and align
// the stack themselves (a compiler may call a function it knows needs no alignment with
// a stack that has none); the C++ halves between them are ordinary functions.
#include "compiler_hooks/patched_entries.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unwind.h>

#include <cstring>

#include "compiler_hooks/entry_sleds.h"
#include "compiler_hooks/procedure_events.h"
#include "runtime/return_stack.h"
#include "support/safe_file.h"

using namespace quartz::rt;
namespace support = quartz::support;

extern "C" {
void quartz_sled_entry();
void quartz_sled_entry_after_endbr();
void quartz_sled_return();
}

// Entry: jumped to from a patched entry (through its object's stub) with the body in r11, so
// [rsp] is the procedure's return address. Keeps the argument registers (rdi, rsi, rdx, rcx,
// r8, r9, rax for varargs, r10 for a static chain, xmm0-7) and aligns the stack itself (a
// compiler may call a function it knows needs no alignment with a stack that has none).
// When quartz_patched_enter took the return address, the trampoline drops it from the stack
// and calls the body: the call puts quartz_sled_return in its place, and the processor's
// return stack predicts the body's return there; else it jumps to the body.
// Return: reached by the body's own ret, so rsp is one above the slot its return address
// was in; keeps the result registers (rax, rdx, xmm0-1; the x87 stack is never touched)
// and returns to the original address by a push and a ret, which the return stack
// predicts too. Its CFI says its caller is unknown: an unwinder that gets here stops
// instead of guessing.
__asm__(R"(
  .text
  .p2align 4
  .globl quartz_sled_entry_after_endbr
  .hidden quartz_sled_entry_after_endbr
  .type quartz_sled_entry_after_endbr, @function
quartz_sled_entry_after_endbr:
  .cfi_startproc
  push $19
  .cfi_adjust_cfa_offset 8
  jmp 1f
  .cfi_endproc
  .size quartz_sled_entry_after_endbr, .-quartz_sled_entry_after_endbr

  .p2align 4
  .globl quartz_sled_entry
  .hidden quartz_sled_entry
  .type quartz_sled_entry, @function
quartz_sled_entry:
  .cfi_startproc
  push $15
  .cfi_adjust_cfa_offset 8
1:
  push %rbp
  .cfi_adjust_cfa_offset 8
  .cfi_offset rbp, -24
  mov %rsp, %rbp
  .cfi_def_cfa_register rbp
  push %rdi
  push %rsi
  push %rdx
  push %rcx
  push %r8
  push %r9
  push %rax
  push %r10
  push %r11
  and $-16, %rsp
  sub $128, %rsp
  movdqu %xmm0, 0(%rsp)
  movdqu %xmm1, 16(%rsp)
  movdqu %xmm2, 32(%rsp)
  movdqu %xmm3, 48(%rsp)
  movdqu %xmm4, 64(%rsp)
  movdqu %xmm5, 80(%rsp)
  movdqu %xmm6, 96(%rsp)
  movdqu %xmm7, 112(%rsp)
  mov %r11, %rdi
  sub 8(%rbp), %rdi
  lea 16(%rbp), %rsi
  call quartz_patched_enter
  mov %rax, 8(%rbp)
  movdqu 0(%rsp), %xmm0
  movdqu 16(%rsp), %xmm1
  movdqu 32(%rsp), %xmm2
  movdqu 48(%rsp), %xmm3
  movdqu 64(%rsp), %xmm4
  movdqu 80(%rsp), %xmm5
  movdqu 96(%rsp), %xmm6
  movdqu 112(%rsp), %xmm7
  lea -72(%rbp), %rsp
  pop %r11
  pop %r10
  pop %rax
  pop %r9
  pop %r8
  pop %rcx
  pop %rdx
  pop %rsi
  pop %rdi
  pop %rbp
  .cfi_def_cfa rsp, 16
  cmpq $0, (%rsp)
  je 2f
  add $16, %rsp
  .cfi_undefined rip
  call *%r11
  .globl quartz_sled_return
  .hidden quartz_sled_return
quartz_sled_return:
  push %rax
  push %rdx
  push %rbp
  mov %rsp, %rbp
  and $-16, %rsp
  sub $32, %rsp
  movdqu %xmm0, 0(%rsp)
  movdqu %xmm1, 16(%rsp)
  lea 24(%rbp), %rdi
  call quartz_patched_exit
  mov %rax, %r11
  movdqu 0(%rsp), %xmm0
  movdqu 16(%rsp), %xmm1
  mov %rbp, %rsp
  pop %rbp
  pop %rdx
  pop %rax
  push %r11
  ret
2:
  .cfi_def_cfa rsp, 16
  .cfi_undefined rip
  add $8, %rsp
  jmp *%r11
  .cfi_endproc
  .size quartz_sled_entry, .-quartz_sled_entry
)");

namespace {

QUARTZ_ALWAYS_INLINE uintptr_t return_trampoline() {
  return reinterpret_cast<uintptr_t>(&quartz_sled_return);
}

// A return came back through us with no record of where to: nothing can continue.
[[noreturn]] QUARTZ_NOINLINE void lost_return() {
  support::write_message(
      "quartz: a patched procedure returned to an address Quartz did not keep\n");
  __builtin_trap();
}

// Pops the records of frames that are gone, those whose slot is below `bound` (deeper on
// the stack than the frame at `bound`: left by a longjmp or an exception), each procedure
// exiting. Fields are read one by one, as push wrote them: a record copied whole would
// wait for the stores of a push a few instructions back to be forwarded.
QUARTZ_ALWAYS_INLINE void drop_gone_records(ReturnStack& returns, ThreadBlock* block,
                                            const uintptr_t* bound) {
  for (uint32_t depth = returns.depth(); depth > 0 && returns.at(depth - 1).slot < bound; --depth) {
    const uintptr_t procedure = returns.at(depth - 1).procedure;
    returns.pop();
    quartz::hooks::exit_procedure(block, procedure);
  }
}

// Deeper than the records go: the call is counted, its time stays its caller's (in a
// recursion, the same procedure's), as a push past the profile stack's capacity.
QUARTZ_NOINLINE void count_unrecorded(ThreadBlock* block, uintptr_t procedure) {
  if (block == nullptr) return;
  count_call(block, block->stack.note_unstored(procedure, kProcedureTag), procedure);
}

// A thread the runtime did not see start (created before it, or not through
// pthread_create) learns its stack at its first patched entry. Once: a thread whose stack
// cannot be read takes no return addresses.
QUARTZ_NOINLINE bool learn_stack(ReturnStack& returns) {
  if (t_local.ignored || t_local.in_runtime) return false;
  returns.learn_stack_bounds();
  return returns.knows_stack();
}

}  // namespace

extern "C" {

// The procedure at `procedure` was entered; `slot` holds its return address. True when the
// address is taken (recorded: the trampoline calls the body in its place). Records at or
// below the slot are frames that are gone: a tail call left its record at this very slot
// (and the address it took is the one to keep), a longjmp left deeper ones.
__attribute__((visibility("hidden"), used)) QUARTZ_NOINSTR bool quartz_patched_enter(
    uintptr_t procedure, uintptr_t* slot) {
  ReturnStack& returns = t_returns;
  if (QUARTZ_UNLIKELY(!returns.on_own_stack(slot))) {
    if (returns.knows_stack() || !learn_stack(returns) || !returns.on_own_stack(slot)) {
      return false;
    }
  }
  ThreadBlock* block = t_local.block;
  uintptr_t original = *slot;
  const uintptr_t trampoline = return_trampoline();
  drop_gone_records(returns, block, slot);
  // A tail call: the procedure that jumped here left its record at this very slot, and the
  // address it took is the one to keep.
  if (const ReturnRecord* caller = returns.top_at(slot)) {
    const uintptr_t procedure_left = caller->procedure;
    if (original == trampoline) original = caller->original;
    returns.pop();
    quartz::hooks::exit_procedure(block, procedure_left);
  }
  if (QUARTZ_UNLIKELY(original == trampoline)) lost_return();  // taken, and its record lost
  if (QUARTZ_UNLIKELY(!returns.push(slot, original, procedure))) {
    count_unrecorded(block, procedure);
    return false;
  }
  quartz::hooks::enter_procedure(block, procedure);
  return true;
}

// The procedure whose return address was just under `above_slot` returned. Records of
// deeper frames are frames a longjmp left.
__attribute__((visibility("hidden"), used)) QUARTZ_NOINSTR uintptr_t
quartz_patched_exit(uintptr_t* above_slot) {
  uintptr_t* const slot = above_slot - 1;
  ReturnStack& returns = t_returns;
  ThreadBlock* block = t_local.block;
  drop_gone_records(returns, block, slot);
  if (const ReturnRecord* top = returns.top_at(slot)) {
    const uintptr_t original = top->original;
    const uintptr_t procedure = top->procedure;
    returns.pop();
    quartz::hooks::exit_procedure(block, procedure);
    return original;
  }
  lost_return();
}

}  // extern "C"

// The unwinder walks frames by their return addresses: it must see the originals. An
// exception is raised with all of them restored; once caught, the frames still live (the
// handler's and its callers') take theirs back and the records of the others go.
namespace {

// The definition ours stands in front of. Looked up at first use (dlsym is safe then: an
// exception or a backtrace is under way, not a signal handler's hook); a race only looks
// it up twice.
template <typename Function>
QUARTZ_NOINSTR Function* next_definition(std::atomic<Function*>& cache, const char* name) {
  Function* function = cache.load(std::memory_order_relaxed);
  if (QUARTZ_UNLIKELY(function == nullptr)) {
    function = reinterpret_cast<Function*>(dlsym(RTLD_NEXT, name));
    cache.store(function, std::memory_order_relaxed);
  }
  return function;
}

#define QUARTZ_NEXT(name)                                       \
  static constinit std::atomic<decltype(name)*> cache{nullptr}; \
  auto* const next = next_definition(cache, #name)

// The canonical frame address of the frame that caught `exception` (libgcc keeps it in
// private_2 from the search phase on); 0 when it cannot be trusted.
QUARTZ_NOINSTR uintptr_t handler_frame(const _Unwind_Exception* exception, uintptr_t below) {
  const auto cfa = static_cast<uintptr_t>(exception->private_2);
  return cfa > below && t_returns.on_own_stack(reinterpret_cast<uintptr_t*>(cfa - 8)) ? cfa : 0;
}

}  // namespace

QUARTZ_EXPORT _Unwind_Reason_Code _Unwind_RaiseException(_Unwind_Exception* exception) {
  QUARTZ_NEXT(_Unwind_RaiseException);
  restore_return_addresses();
  return next ? next(exception) : _URC_FATAL_PHASE1_ERROR;
}

QUARTZ_EXPORT _Unwind_Reason_Code _Unwind_Resume_or_Rethrow(_Unwind_Exception* exception) {
  QUARTZ_NEXT(_Unwind_Resume_or_Rethrow);
  restore_return_addresses();
  return next ? next(exception) : _URC_FATAL_PHASE1_ERROR;
}

QUARTZ_EXPORT void _Unwind_Resume(_Unwind_Exception* exception) {
  QUARTZ_NEXT(_Unwind_Resume);
  restore_return_addresses();
  if (next) next(exception);
  __builtin_trap();
}

QUARTZ_EXPORT _Unwind_Reason_Code _Unwind_ForcedUnwind(_Unwind_Exception* exception,
                                                       _Unwind_Stop_Fn stop, void* argument) {
  QUARTZ_NEXT(_Unwind_ForcedUnwind);
  restore_return_addresses();
  return next ? next(exception, stop, argument) : _URC_FATAL_PHASE1_ERROR;
}

QUARTZ_EXPORT _Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn trace, void* argument) {
  QUARTZ_NEXT(_Unwind_Backtrace);
  restore_return_addresses();
  const _Unwind_Reason_Code code = next ? next(trace, argument) : _URC_END_OF_STACK;
  reinstate_return_addresses();
  return code;
}

extern "C" int backtrace(void** buffer, int size);
QUARTZ_EXPORT int backtrace(void** buffer, int size) {
  QUARTZ_NEXT(backtrace);
  restore_return_addresses();
  const int n = next ? next(buffer, size) : 0;
  reinstate_return_addresses();
  return n;
}

extern "C" void* __cxa_begin_catch(void* exception) noexcept;
QUARTZ_EXPORT void* __cxa_begin_catch(void* exception) noexcept {
  QUARTZ_NEXT(__cxa_begin_catch);
  void* const object = next ? next(exception) : nullptr;
  const uintptr_t trampoline = g_return_trampoline.load(std::memory_order_relaxed);
  ReturnStack& returns = t_returns;
  if (trampoline == 0 || returns.depth() == 0) return object;
  const uintptr_t cfa = handler_frame(static_cast<const _Unwind_Exception*>(exception),
                                      reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
  if (cfa == 0) return object;
  // The frames the exception went through are gone; the handler's and its callers' live.
  drop_gone_records(returns, t_local.block, reinterpret_cast<const uintptr_t*>(cfa - 8));
  returns.reinstate(trampoline);
  return object;
}

namespace quartz::hooks {

SledCounts start_patched_entries(const char* procedures) {
  const SledCounts counts =
      patch_entries({reinterpret_cast<uintptr_t>(&quartz_sled_entry),
                     reinterpret_cast<uintptr_t>(&quartz_sled_entry_after_endbr)},
                    procedures);
  if (counts.patched != 0) {
    g_return_trampoline.store(return_trampoline(), std::memory_order_relaxed);
    t_returns.learn_stack_bounds();
  }
  return counts;
}

void (*patched_probe())() {
  static void (*probe)() = nullptr;
  if (probe != nullptr) return probe;
  const EntryTrampolines trampolines{reinterpret_cast<uintptr_t>(&quartz_sled_entry),
                                     reinterpret_cast<uintptr_t>(&quartz_sled_entry_after_endbr)};
  const auto here = reinterpret_cast<uintptr_t>(&quartz_sled_entry);
  uint8_t* page = map_stubs(trampolines, here, here + 1);
  if (page == nullptr) return nullptr;
  uint8_t* code = page + 4 * kStubBytes;  // after the stubs: an entry, then ret
  if (!write_entry(code, page)) return nullptr;
  code[kEntryBytes] = 0xc3;
  if (mprotect(page, kStubPage, PROT_READ | PROT_EXEC) != 0) return nullptr;
  probe = reinterpret_cast<void (*)()>(code);
  return probe;
}

}  // namespace quartz::hooks
