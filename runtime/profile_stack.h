// The per-thread profile stack (DESIGN.md §2 "On behalf of", §3 "Hot path").
//
// One writer (the owning thread, or a signal handler nested in it); any number of readers
// (the sampler) copying it without locks. The writer publishes every change through one
// 64-bit control word, `seq << 32 | depth`:
//   - push writes the new entry above the published depth (invisible to readers), then
//     stores the word with seq + 2 and depth + 1;
//   - pop stores the word with seq + 2 and depth - 1;
//   - anything that rewrites entries below the published depth (resynchronisation,
//     removing a lock from the middle) makes seq odd first and even again after, as in a
//     seqlock.
// A reader loads the word, copies [0, depth), and loads the word again: the copy is good
// only when both loads are equal and even. seq never repeats within a copy, so equality
// means nothing moved.
//
// Depth keeps counting past capacity so that pops still match pushes; entries past
// capacity are not stored and the overflow is counted.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/attributes.h"

namespace quartz::rt {

// What an entry stands for. Procedures come from the compiler hooks; the rest are
// synchronization objects pushed by the pthread wrappers.
enum class EntryKind : uint8_t {
  procedure = 0,
  mutex,
  rwlock_read,
  rwlock_write,
  spinlock,
  condition,
  barrier,
  semaphore,
  join,
  spin_region,
};
inline constexpr int kEntryKindCount = 10;

// What the thread is doing with a synchronization object on its stack.
enum class EntryRole : uint8_t {
  none = 0,  // procedures
  waiting,   // requested, not yet granted (spinning or blocked)
  holding,   // granted (the critical section)
  released,  // a held mutex given up for the duration of a condition wait
};

using EntryTag = uint32_t;
QUARTZ_ALWAYS_INLINE constexpr EntryTag make_tag(EntryKind kind, EntryRole role) {
  return static_cast<EntryTag>(kind) | static_cast<EntryTag>(role) << 8;
}
QUARTZ_ALWAYS_INLINE constexpr EntryKind tag_kind(EntryTag tag) {
  return static_cast<EntryKind>(tag & 0xff);
}
QUARTZ_ALWAYS_INLINE constexpr EntryRole tag_role(EntryTag tag) {
  return static_cast<EntryRole>((tag >> 8) & 0xff);
}
inline constexpr EntryTag kProcedureTag = make_tag(EntryKind::procedure, EntryRole::none);

struct StackEntry {
  std::atomic<uintptr_t> address;  // function entry or object address
  std::atomic<EntryTag> tag;
  uint32_t repeat;  // immediately repeated pushes folded into this entry; writer-only
};
static_assert(sizeof(StackEntry) == 16);

// What a reader copies out of an entry.
struct EntryValue {
  uintptr_t address;
  EntryTag tag;
};

class ProfileStack {
 public:
  // `entries` must hold `capacity` entries and outlive the stack.
  QUARTZ_NOINSTR void reset(StackEntry* entries, uint32_t capacity);
  // Empties the stack for a new owner, keeping its storage.
  QUARTZ_NOINSTR void clear() { reset(entries_, capacity_); }

  // Writer side. ------------------------------------------------------------------------

  // Pushes, folding an immediate repeat of the top entry into its repeat count.
  // Returns the address of the entry below the new one (the caller, for the call graph),
  // or 0 at the bottom or past capacity.
  QUARTZ_ALWAYS_INLINE uintptr_t push(uintptr_t address, EntryTag tag) {
    const uint64_t word = word_.load(std::memory_order_relaxed);
    const uint32_t depth = static_cast<uint32_t>(word);
    uintptr_t below = 0;
    if (depth - 1 < capacity_) {  // 0 < depth <= capacity
      StackEntry& top = entries_[depth - 1];
      below = top.address.load(std::memory_order_relaxed);
      if (below == address && top.tag.load(std::memory_order_relaxed) == tag) {
        ++top.repeat;
        return below;
      }
    }
    if (QUARTZ_LIKELY(depth < capacity_)) {
      StackEntry& slot = entries_[depth];
      slot.address.store(address, std::memory_order_relaxed);
      slot.tag.store(tag, std::memory_order_relaxed);
      slot.repeat = 0;
      word_.store(word + kSeqStep + 1, std::memory_order_release);
      // A signal handler that ran instrumented code between the stores above and the
      // publication pushed into this same slot (and popped); put our entry back.
      std::atomic_signal_fence(std::memory_order_seq_cst);
      if (QUARTZ_UNLIKELY(slot.address.load(std::memory_order_relaxed) != address)) {
        restore_entry(depth, address, tag);
      }
      return below;
    }
    bump(overflows_);
    word_.store(word + kSeqStep + 1, std::memory_order_release);
    return below;
  }

  // Pops the procedure `address` (the exit hook). When the top is not that procedure,
  // resynchronises: longjmp and exceptions through uninstrumented frames skip exits.
  QUARTZ_ALWAYS_INLINE void pop_procedure(uintptr_t address) {
    const uint64_t word = word_.load(std::memory_order_relaxed);
    const uint32_t depth = static_cast<uint32_t>(word);
    if (depth - 1 < capacity_ && depth > base_) {
      StackEntry& top = entries_[depth - 1];
      if (QUARTZ_LIKELY(top.address.load(std::memory_order_relaxed) == address &&
                        top.tag.load(std::memory_order_relaxed) == kProcedureTag)) {
        if (top.repeat != 0) {
          --top.repeat;
          return;
        }
        word_.store(word + kSeqStep - 1, std::memory_order_release);
        return;
      }
    }
    pop_procedure_slow(address);
  }

  // Removes the top-most entry for synchronization object `address` (a release). Usually
  // the top; a lock released out of order (hand-over-hand) is removed from the middle.
  // Returns false when the object is not on the stack.
  QUARTZ_NOINSTR bool pop_object(uintptr_t address);

  // Changes the role of the top-most entry for `address` in place. Returns false when the
  // object is not on the stack.
  QUARTZ_NOINSTR bool set_role(uintptr_t address, EntryRole role);

  // Starts this (empty) stack with the procedure entries of `parent`, which must be owned
  // by the calling thread. Inherited entries are never popped.
  QUARTZ_NOINSTR void inherit(const ProfileStack& parent);

  // Reader side. ------------------------------------------------------------------------

  // Copies the stored entries into `out` (room for `out_capacity`). Returns false when the
  // copy is torn; otherwise `*depth` is the number of entries copied and `*true_depth` the
  // depth including entries past capacity.
  QUARTZ_NOINSTR bool read(EntryValue* out, uint32_t out_capacity, uint32_t* depth,
                           uint32_t* true_depth) const;

  QUARTZ_ALWAYS_INLINE uint32_t depth() const {
    return static_cast<uint32_t>(word_.load(std::memory_order_acquire));
  }
  QUARTZ_ALWAYS_INLINE uint32_t capacity() const { return capacity_; }
  QUARTZ_ALWAYS_INLINE uint32_t base() const { return base_; }
  // Pushes that did not fit.
  QUARTZ_ALWAYS_INLINE uint64_t overflows() const {
    return overflows_.load(std::memory_order_relaxed);
  }
  // Exits and releases that matched nothing on the stack.
  QUARTZ_ALWAYS_INLINE uint64_t mismatches() const {
    return mismatches_.load(std::memory_order_relaxed);
  }
  // True while the owner rewrites entries in place; a signal handler nested in that
  // rewrite must leave the stack alone.
  QUARTZ_ALWAYS_INLINE bool rewriting() const {
    return (word_.load(std::memory_order_relaxed) >> 32) & 1;
  }

 private:
  static constexpr uint64_t kSeqUnit = uint64_t{1} << 32;
  static constexpr uint64_t kSeqStep = 2 * kSeqUnit;

  // Single-writer counter: a plain load and store, never a read-modify-write.
  QUARTZ_ALWAYS_INLINE static void bump(std::atomic<uint64_t>& counter) {
    counter.store(counter.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  QUARTZ_NOINSTR void pop_procedure_slow(uintptr_t address);
  QUARTZ_NOINSTR void restore_entry(uint32_t index, uintptr_t address, EntryTag tag);
  QUARTZ_NOINSTR uint64_t begin_rewrite();
  QUARTZ_NOINSTR void end_rewrite(uint64_t begun_word, uint32_t new_depth);
  QUARTZ_NOINSTR int find(uintptr_t address, bool procedure) const;

  std::atomic<uint64_t> word_{0};  // seq << 32 | depth
  StackEntry* entries_ = nullptr;
  uint32_t capacity_ = 0;
  uint32_t base_ = 0;  // inherited entries [0, base_) stay until the thread ends
  std::atomic<uint64_t> overflows_{0};
  std::atomic<uint64_t> mismatches_{0};
};

}  // namespace quartz::rt
