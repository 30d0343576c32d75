// The process-wide tables' one open-addressing scheme (call_graph.h, object_registry.h):
// a fixed capacity of records in mapped memory, never removed, found by linear probing
// from a Fibonacci hash of the key. Lock-free: each user claims and matches records with
// its own atomics, inside `visit`. Written on slow paths only, so past kMaxSharedProbes
// probes the table counts as full rather than turning each insert into a scan. Claimed
// records are also listed in the order claimed, so that readers visit only those (a
// capture is built at every snapshot under `quartz run`: a scan of 2^14 objects and 2^16
// edges took 120 of its 180 µs).
#pragma once

#include <atomic>
#include <cstdint>
#include <new>

#include "runtime/attributes.h"
#include "runtime/mapped_memory.h"
#include "runtime/thread_counters.h"

namespace quartz::rt {

// What `visit` says of a record on a key's probe sequence.
enum class Probe { next, found, absent };

template <class Record>
class SharedTable {
 public:
  static constexpr uint32_t kMaxSharedProbes = 64;

  constexpr SharedTable() = default;

  // Maps room for 2^capacity_log2 records. Returns false when the memory is unavailable
  // (then every probe finds nothing).
  QUARTZ_NOINSTR bool configure(uint32_t capacity_log2) {
    const uint32_t capacity = uint32_t{1} << capacity_log2;
    void* memory = map_zeroed(sizeof(Record) * capacity);
    void* claimed = map_zeroed(sizeof(std::atomic<uint32_t>) * capacity);
    if (!memory || !claimed) return false;
    records_ = new (memory) Record[capacity];
    claimed_ = new (claimed) std::atomic<uint32_t>[capacity];
    mask_ = capacity - 1;
    shift_ = 64 - capacity_log2;
    return true;
  }

  // Calls visit(Record&) on the records of `hash_key`'s probe sequence until it answers
  // found (returns that record) or absent (returns null); null too when the sequence ends.
  template <class Visit>
  QUARTZ_NOINSTR Record* probe(uint64_t hash_key, Visit&& visit) const {
    if (!records_) return nullptr;
    const uint32_t home = fib_hash(hash_key, shift_);
    for (uint32_t i = 0; i <= mask_ && i < kMaxSharedProbes; ++i) {
      Record& r = records_[(home + i) & mask_];
      const Probe answer = visit(r);
      if (answer == Probe::found) return &r;
      if (answer == Probe::absent) return nullptr;
    }
    return nullptr;
  }

  // Lists `r`, which the caller has just claimed (each record once).
  QUARTZ_NOINSTR void note_claimed(const Record& r) {
    const uint32_t at = claimed_count_.fetch_add(1, std::memory_order_relaxed);
    if (at <= mask_) {
      claimed_[at].store(static_cast<uint32_t>(&r - records_) + 1, std::memory_order_release);
    }
  }
  // Calls visit(const Record&) on every claimed record (one being listed may be missed).
  template <class Visit>
  QUARTZ_NOINSTR void for_each_claimed(Visit&& visit) const {
    if (!records_) return;
    uint32_t n = claimed_count_.load(std::memory_order_acquire);
    if (n > mask_ + 1) n = mask_ + 1;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t index = claimed_[i].load(std::memory_order_acquire);
      if (index != 0) visit(static_cast<const Record&>(records_[index - 1]));
    }
  }

  QUARTZ_NOINSTR uint32_t capacity() const { return records_ ? mask_ + 1 : 0; }
  QUARTZ_NOINSTR Record& record(uint32_t i) const { return records_[i]; }
  // What found no room: calls for the call graph, objects for the registry.
  QUARTZ_NOINSTR uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  QUARTZ_NOINSTR void count_dropped(uint64_t n) {
    dropped_.fetch_add(n, std::memory_order_relaxed);
  }

 private:
  Record* records_ = nullptr;
  std::atomic<uint32_t>* claimed_ = nullptr;  // record index + 1, in the order claimed
  std::atomic<uint32_t> claimed_count_{0};
  uint32_t mask_ = 0;
  unsigned shift_ = 64;
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace quartz::rt
