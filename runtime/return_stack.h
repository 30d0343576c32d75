// The return addresses that patched entries took over (compiler_hooks/patched_entries.cpp,
// docs/design.md "Patched entries").
//
// A procedure entered through a patched entry has no exit hook: the entry replaces its
// return address on the machine stack with the return trampoline's, and keeps the original
// here with the place it was taken from. The trampoline finds the record by that place,
// pops the procedure and jumps to the original.
//
// Kept in thread-local storage rather than in the thread's block, so that a return always
// finds its record, whatever became of the block (a thread's end, fork). One writer, the
// owning thread or a signal handler nested in it; no other reader.
//
// Anything that walks the machine stack by its return addresses (the C++ unwinder,
// backtrace(), libunwind) must see the originals: restore_all() writes them back, and
// reinstate() takes them again once the walk is over (for an exception: those of the
// frames that are still live, after the catch).
#pragma once

#include <atomic>
#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt {

struct ReturnRecord {
  uintptr_t* slot;      // where the return address was on the machine stack
  uintptr_t original;   // what it was
  uintptr_t procedure;  // the procedure it returns from (its entry's address)
  bool restored;        // the original is back in the slot: no return will come through us
};

class ReturnStack {
 public:
  static constexpr uint32_t kCapacity = 512;

  QUARTZ_ALWAYS_INLINE uint32_t depth() const { return depth_; }
  QUARTZ_ALWAYS_INLINE ReturnRecord& at(uint32_t i) { return records_[i]; }

  // Records a taken return address; false when full (the procedure then keeps its own).
  // A signal handler's patched procedure may push and pop over the record between its
  // stores (field by field, in any order) and the new depth: it is checked whole, and
  // written again, once the depth no longer lets a handler near it.
  QUARTZ_ALWAYS_INLINE bool push(uintptr_t* slot, uintptr_t original, uintptr_t procedure) {
    const uint32_t depth = depth_;
    if (QUARTZ_UNLIKELY(depth == kCapacity)) return false;
    ReturnRecord& record = records_[depth];
    record.slot = slot;
    record.original = original;
    record.procedure = procedure;
    record.restored = false;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    depth_ = depth + 1;
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (QUARTZ_UNLIKELY(record.slot != slot || record.original != original ||
                        record.procedure != procedure || record.restored)) {
      record.slot = slot;
      record.original = original;
      record.procedure = procedure;
      record.restored = false;
    }
    return true;
  }

  QUARTZ_ALWAYS_INLINE void pop() { --depth_; }
  // The top record when it was taken at `slot`, else null.
  QUARTZ_ALWAYS_INLINE const ReturnRecord* top_at(const uintptr_t* slot) const {
    return depth_ != 0 && records_[depth_ - 1].slot == slot ? &records_[depth_ - 1] : nullptr;
  }

  // The thread's own stack, [low, high). Only return addresses there are taken: a signal
  // handler's alternate stack or a fiber's may be freed under a record, and their frames
  // need not nest with the thread's. So the records nest: each slot is below the one
  // before it, and a record at or below a new slot, or below a returning one, is a frame
  // that is gone (a tail call, a longjmp). Read once per thread: as it starts, or at its
  // first patched entry; empty when it cannot be read (nothing is then taken).
  QUARTZ_NOINSTR void learn_stack_bounds();
  QUARTZ_ALWAYS_INLINE bool on_own_stack(const uintptr_t* slot) const {
    const auto a = reinterpret_cast<uintptr_t>(slot);
    return a - stack_low_ < stack_high_ - stack_low_;
  }
  QUARTZ_ALWAYS_INLINE bool knows_stack() const { return stack_high_ != 0; }
  // Takes no return addresses from now on (the sampler, after its calibration).
  QUARTZ_ALWAYS_INLINE void forget_stack() { stack_low_ = stack_high_ = 1; }

  // Writes every taken return address back (see the header comment).
  QUARTZ_NOINSTR void restore_all(uintptr_t trampoline);
  // Takes back the restored ones whose slot still holds the original (a slot that no
  // longer does belongs to a frame that is gone), from record `from` up.
  QUARTZ_NOINSTR void reinstate(uintptr_t trampoline, uint32_t from = 0);

 private:
  uint32_t depth_ = 0;
  uintptr_t stack_low_ = 0;
  uintptr_t stack_high_ = 0;
  ReturnRecord records_[kCapacity]{};
};

// This thread's taken return addresses. Initial-exec: one %fs-relative access.
extern __thread ReturnStack t_returns __attribute__((tls_model("initial-exec")));

// The return trampoline's address while entries are patched, else 0.
extern std::atomic<uintptr_t> g_return_trampoline;

// For code that walks the stack by return addresses (pthread_exit's unwind, libunwind):
// the calling thread's originals written back, and taken again after. No-ops when no entry
// is patched.
QUARTZ_NOINSTR void restore_return_addresses();
QUARTZ_NOINSTR void reinstate_return_addresses();

}  // namespace quartz::rt
