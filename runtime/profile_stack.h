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

#include "runtime/single_writer.h"
#include "runtime/thread_counters.h"
#include "support/attributes.h"

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
  omp_region_end,  // OpenMP (interpose_openmp.cpp)
  omp_barrier,
  omp_critical,
  omp_lock,
  omp_idle,
  omp_task_wait,  // taskwait, taskgroup (openmp_tool.cpp)
  tbb_wait,       // oneTBB, through ITT (itt_collector.cpp)
  tbb_idle,
};
inline constexpr int kEntryKindCount = 18;

// What the thread is doing with an entry's object or procedure.
enum class EntryRole : uint8_t {
  none = 0,   // a procedure the thread entered itself
  waiting,    // requested, not yet granted (spinning or blocked)
  holding,    // granted (the critical section)
  released,   // a held mutex given up for the duration of a condition wait
  inherited,  // a procedure of the creating thread, copied at thread start; never popped
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
inline constexpr EntryTag kInheritedTag = make_tag(EntryKind::procedure, EntryRole::inherited);

// One word holds the tag (low half) and the repeat count (high half), so that a push is
// one store of it and a pop one comparison.
inline constexpr uint64_t kRepeatUnit = uint64_t{1} << 32;
QUARTZ_ALWAYS_INLINE constexpr EntryTag meta_tag(uint64_t meta) {
  return static_cast<EntryTag>(meta);
}

struct StackEntry {
  std::atomic<uintptr_t> address;  // function entry or object address
  std::atomic<uint64_t> meta;      // tag | repeat << 32 (immediate repeats folded here)
  // Writer-only cache for the enter hook: the call edge last counted from this entry, or
  // kNoEdge. Emptied by every push into this slot, so it always belongs to the entry's
  // current procedure. One word, so that a signal handler's hook, nested anywhere in the
  // owner's, sees either the old edge or the new one, never a callee with another edge's
  // counter.
  CallEdgeSlot* child_edge;
  uint64_t padding;  // 32 bytes: an entry never straddles a cache line
};
static_assert(sizeof(StackEntry) == 32);

// Writes an entry for a new occupant: its address and meta, its edge cache emptied.
QUARTZ_ALWAYS_INLINE void fill_entry(StackEntry& entry, uintptr_t address, uint64_t meta) {
  entry.address.store(address, std::memory_order_relaxed);
  entry.meta.store(meta, std::memory_order_relaxed);
  entry.child_edge = &kNoEdge;
}

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

  // A push in two halves, so that a caller can do other work in between and keep every
  // rare path a tail call (the enter hook needs no saved registers that way).
  struct Push {
    uintptr_t below;          // the entry under the new one (the caller), 0 at the bottom
    StackEntry* below_entry;  // that entry; null at the bottom or past capacity
    StackEntry* slot;         // where the new entry went; null when folded or past capacity
  };

  // Stores the entry and publishes it, or folds an immediate repeat of the top entry into
  // its repeat count, or only counts depth past capacity.
  QUARTZ_ALWAYS_INLINE Push begin_push(uintptr_t address, EntryTag tag) {
    const uint64_t word = word_.load(std::memory_order_relaxed);
    const uint32_t depth = static_cast<uint32_t>(word);
    uintptr_t below = 0;
    StackEntry* below_entry = nullptr;
    if (depth - 1 < capacity_) {  // 0 < depth <= capacity
      below_entry = &entries_[depth - 1];
      below = below_entry->address.load(std::memory_order_relaxed);
      const uint64_t meta = below_entry->meta.load(std::memory_order_relaxed);
      if (below == address && meta_tag(meta) == tag) {
        below_entry->meta.store(meta + kRepeatUnit, std::memory_order_relaxed);
        return Push{below, below_entry, nullptr};
      }
    }
    if (QUARTZ_UNLIKELY(depth >= capacity_)) {
      bump(overflows_);
      word_.store(word + kSeqStep + 1, std::memory_order_release);
      return Push{below, below_entry, nullptr};
    }
    StackEntry* slot = &entries_[depth];
    fill_entry(*slot, address, tag);
    word_.store(word + kSeqStep + 1, std::memory_order_release);
    return Push{below, below_entry, slot};
  }

  // Completes a push. A signal handler that ran instrumented code between begin_push's
  // stores and its publication pushed into the same slot (and popped); put our entry
  // back. No other push may come between the two halves.
  QUARTZ_ALWAYS_INLINE void finish_push(const Push& push, uintptr_t address, EntryTag tag) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (QUARTZ_UNLIKELY(push.slot != nullptr &&
                        push.slot->address.load(std::memory_order_relaxed) != address)) {
      restore_entry(push.slot, address, tag);
    }
  }

  // Completes a push as finish_push does, and gives the entry its final tag (a lock that
  // was pushed as waited for and is now held). Called long after begin_push, the check
  // costs nothing: the store is no longer in flight.
  QUARTZ_ALWAYS_INLINE void finish_push_as(const Push& push, uintptr_t address, EntryTag tag) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    if (QUARTZ_UNLIKELY(push.slot == nullptr)) {
      set_role(address, tag_role(tag));
    } else if (QUARTZ_LIKELY(push.slot->address.load(std::memory_order_relaxed) == address)) {
      push.slot->meta.store(tag, std::memory_order_relaxed);
    } else {
      restore_entry(push.slot, address, tag);
    }
  }

  // Pushes; returns the address of the entry below (see Push::below).
  QUARTZ_ALWAYS_INLINE uintptr_t push(uintptr_t address, EntryTag tag) {
    const Push p = begin_push(address, tag);
    finish_push(p, address, tag);
    return p.below;
  }

  // Notes a push that cannot be stored because no pop will come for it (a patched entry
  // deeper than its return records): past capacity, unless it repeats the top entry.
  // Returns the caller of a procedure pushed now (caller_at the top).
  QUARTZ_NOINSTR uintptr_t note_unstored(uintptr_t address, EntryTag tag);

  // The caller of a procedure pushed above `entry`: the nearest procedure at or below it
  // (0: none), past the objects held or waited for. Edges from the objects themselves
  // would never be found by the call graph, which takes a context's caller the same way,
  // and would number one per object (125,000 for a program holding each of 125,000 mutexes
  // in turn while it calls one procedure).
  QUARTZ_NOINSTR uintptr_t caller_at(const StackEntry* entry) const;
  // The innermost procedure on the stack, past the objects above it (0: none).
  QUARTZ_NOINSTR uintptr_t innermost_procedure() const;

  // Pops the procedure `address` (the exit hook), or unfolds one repeat. When the top is
  // not that procedure, resynchronises: longjmp and exceptions through uninstrumented
  // frames skip exits.
  QUARTZ_ALWAYS_INLINE void pop_procedure(uintptr_t address) {
    const uint64_t word = word_.load(std::memory_order_relaxed);
    const uint32_t depth = static_cast<uint32_t>(word);
    if (depth - 1 < capacity_) {
      StackEntry& top = entries_[depth - 1];
      if (QUARTZ_LIKELY(top.address.load(std::memory_order_relaxed) == address)) {
        const uint64_t meta = top.meta.load(std::memory_order_relaxed);
        if (QUARTZ_LIKELY(meta == kProcedureTag)) {
          word_.store(word + kSeqStep - 1, std::memory_order_release);
          return;
        }
        if (meta_tag(meta) == kProcedureTag) {
          top.meta.store(meta - kRepeatUnit, std::memory_order_relaxed);
          return;
        }
      }
    }
    pop_procedure_slow(address);
  }

  // Removes the top-most entry for synchronization object `address` (a release). Usually
  // the top; a lock released out of order (hand-over-hand) is removed from the middle.
  // Returns false when the object is not on the stack.
  QUARTZ_ALWAYS_INLINE bool pop_object(uintptr_t address) {
    const uint64_t word = word_.load(std::memory_order_relaxed);
    const uint32_t depth = static_cast<uint32_t>(word);
    if (depth - 1 < capacity_) {
      StackEntry& top = entries_[depth - 1];
      const uint64_t meta = top.meta.load(std::memory_order_relaxed);
      if (QUARTZ_LIKELY(top.address.load(std::memory_order_relaxed) == address &&
                        meta < kRepeatUnit && tag_kind(meta_tag(meta)) != EntryKind::procedure)) {
        word_.store(word + kSeqStep - 1, std::memory_order_release);
        return true;
      }
    }
    return pop_object_slow(address);
  }

  // Changes the role of the top-most entry for `address` in place. Returns false when the
  // object is not on the stack.
  QUARTZ_NOINSTR bool set_role(uintptr_t address, EntryRole role);

  // Starts this (empty) stack with the procedure entries of `parent`, which must be owned
  // by the calling thread. They are marked inherited and never popped.
  QUARTZ_NOINSTR void inherit(const ProfileStack& parent);

  // Replaces the whole stack, which must hold only inherited entries, with `frames` (n
  // procedure addresses, bottom first) marked inherited: a pooled thread (an OpenMP team
  // thread) starting work on behalf of another thread's procedures. Owner only.
  QUARTZ_NOINSTR void rebase(const uintptr_t* frames, uint32_t n);
  // Copies the addresses of the procedure entries (inherited ones too), bottom first, into
  // `out` (room for `max`); returns how many. Owner only.
  QUARTZ_NOINSTR uint32_t copy_procedures(uintptr_t* out, uint32_t max) const;

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
  // Pushes and pops published so far, twice over (a reader's count of hook events).
  QUARTZ_ALWAYS_INLINE uint32_t sequence() const {
    return static_cast<uint32_t>(word_.load(std::memory_order_relaxed) >> 32);
  }
  // Pushes that did not fit.
  QUARTZ_ALWAYS_INLINE uint64_t overflows() const {
    return overflows_.load(std::memory_order_relaxed);
  }
  // Procedure exits that matched nothing on the stack.
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

  QUARTZ_NOINSTR void pop_procedure_slow(uintptr_t address);
  QUARTZ_NOINSTR void restore_entry(StackEntry* slot, uintptr_t address, EntryTag tag);
  QUARTZ_NOINSTR bool pop_object_slow(uintptr_t address);
  QUARTZ_NOINSTR uint64_t begin_rewrite();
  QUARTZ_NOINSTR void end_rewrite(uint64_t begun_word, uint32_t new_depth);
  QUARTZ_NOINSTR int find(uintptr_t address, bool procedure) const;

  std::atomic<uint64_t> word_{0};  // seq << 32 | depth
  StackEntry* entries_ = nullptr;
  uint32_t capacity_ = 0;
  std::atomic<uint64_t> overflows_{0};
  std::atomic<uint64_t> mismatches_{0};
};

}  // namespace quartz::rt
