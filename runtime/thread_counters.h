// Per-thread counters the hooks and wrappers bump without sharing a cache line with any
// other thread: call-graph edges (caller -> callee call counts) and per-object
// synchronization counts. Open addressing, fixed capacity, one writer (the owner), readers
// anywhere. A slot's key is stored last, with release, so a reader that sees the key sees
// the slot initialised. When a key cannot be placed within kMaxProbes, the event goes to
// the process-wide table instead (slower, counted as spilled).
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/single_writer.h"
#include "support/attributes.h"

namespace quartz::rt {

// Fibonacci hashing: the top `bits` of key * 2^64/phi.
QUARTZ_ALWAYS_INLINE uint32_t fib_hash(uint64_t key, unsigned shift) {
  return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> shift);
}

inline constexpr uint32_t kMaxProbes = 8;

struct CallEdgeSlot {
  std::atomic<uintptr_t> caller;  // 0: the thread's root (nothing instrumented below)
  std::atomic<uintptr_t> callee;  // 0: empty slot
  std::atomic<uint64_t> calls;
  // Not this slot's, but the table's list of claimed slots (CallEdgeTable::for_each_claimed):
  // the position of the edge claimed i-th, i being this slot's position; and, in the first
  // slot only, how many are claimed (the thread block's first cache line has no room left).
  std::atomic<uint32_t> claimed_at;
  std::atomic<uint32_t> claimed;
};
static_assert(sizeof(CallEdgeSlot) == 32);

// The edge an empty cache points at (ProfileStack's StackEntry::child_edge): callee 0
// matches no procedure, so the enter hook needs no null check.
inline constinit CallEdgeSlot kNoEdge{};

class CallEdgeTable {
 public:
  QUARTZ_NOINSTR void reset(CallEdgeSlot* slots, uint32_t capacity_log2);

  // Counts one call, inserting the edge if new. Returns its slot, for the caller to cache
  // (the enter hook keeps it in the caller's stack entry), or null when the edge found no
  // room (spill it).
  QUARTZ_NOINSTR CallEdgeSlot* count(uintptr_t caller, uintptr_t callee);

  QUARTZ_ALWAYS_INLINE uint32_t capacity() const { return mask_ + 1; }
  QUARTZ_ALWAYS_INLINE const CallEdgeSlot& slot(uint32_t i) const { return slots_[i]; }
  // Visits the slots claimed so far, in the order claimed: a reader's pass costs the edges
  // the thread has, not the table's 2^N slots (a scan of them all can take two fifths of a
  // capture's publication).
  template <typename Visit>
  QUARTZ_NOINSTR void for_each_claimed(Visit&& visit) const {
    const uint32_t n = slots_[0].claimed.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n; ++i) visit(claimed_slot(i));
  }
  // Zeroes every count (the owner, or a reader that has retired the owner).
  QUARTZ_NOINSTR void clear();

 private:
  // The slot claimed i-th.
  QUARTZ_ALWAYS_INLINE CallEdgeSlot& claimed_slot(uint32_t i) const {
    return slots_[slots_[i].claimed_at.load(std::memory_order_relaxed)];
  }
  QUARTZ_ALWAYS_INLINE uint32_t home(uintptr_t caller, uintptr_t callee) const {
    return fib_hash(callee ^ (caller >> 2), shift_);
  }

  CallEdgeSlot* slots_ = nullptr;
  uint32_t mask_ = 0;
  unsigned shift_ = 64;
};

struct ObjectCountSlot {
  std::atomic<uintptr_t> address;  // 0: empty slot
  std::atomic<uint64_t> acquisitions;
  std::atomic<uint64_t> contended;   // acquisitions that had to wait
  std::atomic<uint64_t> wait_ticks;  // time spent waiting in contended acquisitions
};
static_assert(sizeof(ObjectCountSlot) == 32);

class ObjectCountTable {
 public:
  // Memory for a table of 2^capacity_log2 slots: the slots, then the list of those claimed
  // (a count and their positions, 32 bits each).
  QUARTZ_NOINSTR static size_t bytes_for(uint32_t capacity_log2);
  QUARTZ_NOINSTR void reset(ObjectCountSlot* slots, uint32_t capacity_log2);

  // The slot for `address`, inserting it; null when the table has no room near its hash.
  // `inserted` tells the caller to register the object process-wide.
  QUARTZ_ALWAYS_INLINE ObjectCountSlot* find(uintptr_t address, bool* inserted) {
    ObjectCountSlot& s = slots_[fib_hash(address, shift_)];
    if (QUARTZ_LIKELY(s.address.load(std::memory_order_relaxed) == address)) {
      *inserted = false;
      return &s;
    }
    return find_slow(address, inserted);
  }

  QUARTZ_ALWAYS_INLINE uint32_t capacity() const { return mask_ + 1; }
  // Visits the slots claimed so far, in the order claimed: a reader's pass (each
  // publication's, each thread's end) costs the objects the thread used, not the table's
  // 2^N slots (a thousand threads' tables, 256 slots each, took most of a publication).
  template <typename Visit>
  QUARTZ_NOINSTR void for_each_claimed(Visit&& visit) const {
    const uint32_t n = claimed_count().load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n; ++i) visit(slots_[claimed_at(i).load(std::memory_order_relaxed)]);
  }
  // The slot for `address` if the table has one (a reader's lookup: never inserts).
  QUARTZ_NOINSTR const ObjectCountSlot* lookup(uintptr_t address) const;
  QUARTZ_NOINSTR void clear();

 private:
  QUARTZ_NOINSTR ObjectCountSlot* find_slow(uintptr_t address, bool* inserted);
  // The claimed list, after the slots (zeroed with the block): its count, then positions.
  QUARTZ_ALWAYS_INLINE std::atomic<uint32_t>& claimed_count() const {
    return reinterpret_cast<std::atomic<uint32_t>*>(slots_ + mask_ + 1)[0];
  }
  QUARTZ_ALWAYS_INLINE std::atomic<uint32_t>& claimed_at(uint32_t i) const {
    return reinterpret_cast<std::atomic<uint32_t>*>(slots_ + mask_ + 1)[1 + i];
  }

  ObjectCountSlot* slots_ = nullptr;
  uint32_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace quartz::rt
