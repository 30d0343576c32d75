// The process-wide tables' one open-addressing scheme (call_graph.h, object_registry.h):
// records in mapped memory, never removed, found by linear probing from a Fibonacci hash
// of the key. Lock-free: each user claims and matches records with its own atomics, inside
// `visit`. Past kMaxSharedProbes probes a level counts as full for that key: a lookup of a
// key in a later level reads that many records of each level before (objects past a
// thread's own table are looked up at every acquisition: with 64 a level, 200 ns a pair).
//
// The table grows with the program: levels of 2^log2, 2^(log2+1), ... records, each
// mapped when a key first finds every record of its probe sequence in the levels before
// taken. A key lives in the first level whose sequence had room for it: records are never
// freed, so a sequence once full stays full, and every thread looking for the key walks
// the same levels to the same record. Levels cost nothing on the hot paths, which never
// read these tables.
//
// Claimed records are also listed in the order claimed, so that readers visit only those (a
// scan of every record is two thirds of building a small capture); a record's place in that
// list is its dense index (order_of), for readers' side tables. Each level's mapping holds
// its records, their places, and the part of the list as long as the level: the list never
// outgrows the levels mapped, so nothing is mapped before it is needed.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "runtime/thread_counters.h"
#include "support/attributes.h"
#include "support/mapped_memory.h"

namespace quartz::rt {

// What `visit` says of a record on a key's probe sequence.
enum class Probe { next, found, absent };

template <class Record>
class SharedTable {
 public:
  static constexpr uint32_t kMaxSharedProbes = 8;  // 16: 60-75 ns a pair above; 8: 50-56
  static constexpr uint32_t kLevels = 8;           // 255 times the first level's records in all

  constexpr SharedTable() = default;

  // Maps the first level, 2^capacity_log2 records. Returns false when the memory is
  // unavailable (then every probe finds nothing).
  QUARTZ_NOINSTR bool configure(uint32_t capacity_log2) {
    first_log2_ = capacity_log2;
    return level(0) != nullptr;
  }

  // Calls visit(Record&) on the records of `hash_key`'s probe sequence, level after level,
  // until it answers found (returns that record) or absent (returns null). A key whose
  // sequence is full in every level that exists maps the next one when `grow` (an insert)
  // and is dropped after the last; without `grow` (a lookup), it is not there.
  template <class Visit>
  QUARTZ_NOINSTR Record* probe(uint64_t hash_key, Visit&& visit, bool grow = true) const {
    for (uint32_t k = 0; k < kLevels; ++k) {
      Record* records = grow ? level(k) : levels_[k].load(std::memory_order_acquire);
      if (!records) return nullptr;
      const uint32_t mask = level_size(k) - 1;
      const uint32_t home = fib_hash(hash_key, 64 - (first_log2_ + k));
      for (uint32_t i = 0; i <= mask && i < kMaxSharedProbes; ++i) {
        Record& r = records[(home + i) & mask];
        const Probe answer = visit(r);
        if (answer == Probe::found) return &r;
        if (answer == Probe::absent) return nullptr;
      }
    }
    return nullptr;
  }

  // Lists `r`, which the caller has just claimed (each record once).
  QUARTZ_NOINSTR void note_claimed(const Record& r) {
    const uint32_t at = claimed_count_.fetch_add(1, std::memory_order_relaxed);
    if (at >= max_records()) return;
    const auto [k, slot] = place_of(r);
    order_of_level(k)[slot].store(at + 1, std::memory_order_relaxed);
    claimed_at(at).store(global_index(k, slot) + 1, std::memory_order_release);
  }
  // Calls visit(Record&) on every claimed record (one being listed may be missed). The
  // records lie where their keys hashed: each is fetched a few visits ahead, or the walk
  // waits for memory at every one.
  template <class Visit>
  QUARTZ_NOINSTR void for_each_claimed(Visit&& visit) const {
    constexpr uint32_t kAhead = 8;
    const uint32_t n = claimed_count();
    for (uint32_t i = 0; i < n; ++i) {
      if (i + kAhead < n) {
        const uint32_t ahead = claimed_at(i + kAhead).load(std::memory_order_relaxed);
        if (ahead != 0) __builtin_prefetch(&record_at(ahead - 1));
      }
      const uint32_t index = claimed_at(i).load(std::memory_order_acquire);
      if (index != 0) visit(record_at(index - 1));
    }
  }
  // Records claimed so far (those for_each_claimed visits), at most max_records().
  QUARTZ_NOINSTR uint32_t claimed_count() const {
    const uint32_t n = claimed_count_.load(std::memory_order_acquire);
    return n < max_records() ? n : max_records();
  }
  // `r`'s place in the order claimed, from 0 (below claimed_count()); r must be listed.
  QUARTZ_NOINSTR uint32_t order_of(const Record& r) const {
    const auto [k, slot] = place_of(r);
    return order_of_level(k)[slot].load(std::memory_order_relaxed) - 1;
  }

  // Records of every level there can be.
  QUARTZ_NOINSTR uint32_t max_records() const {
    return (uint32_t{1} << first_log2_) * ((uint32_t{1} << kLevels) - 1);
  }
  QUARTZ_NOINSTR bool configured() const {
    return levels_[0].load(std::memory_order_relaxed) != nullptr;
  }
  // What found no room: calls for the call graph, objects for the registry.
  QUARTZ_NOINSTR uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  QUARTZ_NOINSTR void count_dropped(uint64_t n) {
    dropped_.fetch_add(n, std::memory_order_relaxed);
  }

 private:
  struct Place {
    uint32_t level, slot;
  };

  QUARTZ_NOINSTR uint32_t level_size(uint32_t k) const { return uint32_t{1} << (first_log2_ + k); }
  // Records of the levels before k.
  QUARTZ_NOINSTR uint32_t level_base(uint32_t k) const {
    return (uint32_t{1} << first_log2_) * ((uint32_t{1} << k) - 1);
  }
  QUARTZ_NOINSTR uint32_t global_index(uint32_t k, uint32_t slot) const {
    return level_base(k) + slot;
  }
  QUARTZ_NOINSTR uint32_t level_of(uint32_t index) const {
    uint32_t k = 0;
    while (k + 1 < kLevels && index >= level_base(k + 1)) ++k;
    return k;
  }
  QUARTZ_NOINSTR Record& record_at(uint32_t index) const {
    const uint32_t k = level_of(index);
    return levels_[k].load(std::memory_order_acquire)[index - level_base(k)];
  }
  // Place `at` of the list of claimed records (global index + 1; 0: being listed). The
  // list is never longer than the levels mapped, so its part is there.
  QUARTZ_NOINSTR std::atomic<uint32_t>& claimed_at(uint32_t at) const {
    const uint32_t k = level_of(at);
    return order_of_level(k)[level_size(k) + (at - level_base(k))];
  }
  QUARTZ_NOINSTR Place place_of(const Record& r) const {
    for (uint32_t k = 0; k < kLevels; ++k) {
      const Record* records = levels_[k].load(std::memory_order_acquire);
      if (records && &r >= records && &r < records + level_size(k)) {
        return {k, static_cast<uint32_t>(&r - records)};
      }
    }
    return {0, 0};  // not a record of this table: callers never pass one
  }
  // A level's claim order numbers (order + 1; 0: not claimed), after its records; then
  // its part of the list of claimed records.
  QUARTZ_NOINSTR std::atomic<uint32_t>* order_of_level(uint32_t k) const {
    return reinterpret_cast<std::atomic<uint32_t>*>(levels_[k].load(std::memory_order_acquire) +
                                                    level_size(k));
  }

  // Level k's records, mapped by the first thread that needs them; null when the memory
  // is unavailable.
  QUARTZ_NOINSTR Record* level(uint32_t k) const {
    Record* records = levels_[k].load(std::memory_order_acquire);
    if (records) return records;
    const size_t bytes = (sizeof(Record) + 2 * sizeof(std::atomic<uint32_t>)) * level_size(k);
    void* memory = support::map_zeroed(bytes);
    if (!memory) return nullptr;
    // Not constructed: a record's initial state, and a place's, is all zero bytes, which
    // the fresh mapping holds. Stores of those zeros would touch every page of the first
    // levels as the program starts (~18 ms before main) and keep them resident however few
    // are used.
    static_assert(std::is_trivially_destructible_v<Record>);
    auto* mapped = static_cast<Record*>(memory);
    if (!levels_[k].compare_exchange_strong(records, mapped, std::memory_order_acq_rel)) {
      munmap(memory, bytes);  // another thread mapped it first: `records` is theirs
      return records;
    }
    return mapped;
  }

  mutable std::atomic<Record*> levels_[kLevels] = {};
  std::atomic<uint32_t> claimed_count_{0};
  uint32_t first_log2_ = 0;
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace quartz::rt
