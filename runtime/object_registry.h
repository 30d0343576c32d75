// Process-wide record of every synchronization object the program used: its kind, its
// name (quartz.h) or the call chain that first acquired it, and the counters of threads
// that have finished. Counters of running threads
// stay in their blocks (thread_counters.h); a reader adds the two.
//
// A SharedTable (shared_table.h) keyed by the object's address, inserted with a
// compare-and-swap on the key. Written on slow paths only: an object's
// first use by a thread, thread retirement, naming, posts.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/profile_stack.h"
#include "runtime/shared_table.h"
#include "support/attributes.h"

namespace quartz::rt {

inline constexpr uint32_t kObjectNameBytes = 48;
// Return addresses kept of the call chain that first acquired an object: from the caller
// of the pthread function outwards, enough to get past std::mutex, std::lock_guard and
// similar frames of the system's headers to the program's own.
inline constexpr uint32_t kAcquiredFromFrames = 8;
// The kind of an object named before its first use; that use sets the kind.
inline constexpr uint32_t kKindUnset = 0xffffffffu;

// Every member starts at zero: SharedTable maps records without constructing them.
struct alignas(support::kCacheLine) ObjectRecord {
  std::atomic<uintptr_t> address{0};  // key; 0 marks an empty record
  std::atomic<uint32_t> kind{0};      // EntryKind of its first use
  // A barrier's count, a semaphore's initial value (from their init, always); when tracing, the
  // critical section a condition's latest signal came from (trace_events.h). When tracing,
  // the object's operations are numbered so that offline code pairs them.
  std::atomic<uint32_t> trace_parameter{0};
  std::atomic<uintptr_t> first_site{0};
  std::atomic<uint64_t> acquisitions{0};  // of finished threads
  std::atomic<uint64_t> contended{0};
  std::atomic<uint64_t> wait_ticks{0};
  std::atomic<uint64_t> posts{0};  // signals, broadcasts, semaphore posts (all threads)
  std::atomic<uint32_t> name_lock{0};
  std::atomic<uint32_t> named{0};
  std::atomic<uint32_t> trace_sequence{0};  // acquisitions, write epochs, signals, posts, arrivals
  std::atomic<uint32_t> trace_count{0};     // read acquisitions in this epoch, semaphore waits
  char name[kObjectNameBytes] = {};
  // The first acquisition's call chain, innermost first (acquired_from[0] == first_site);
  // `frames` is stored last, with release.
  std::atomic<uint32_t> frames{0};
  std::atomic<uintptr_t> acquired_from[kAcquiredFromFrames] = {};
};
static_assert(sizeof(ObjectRecord) == 3 * support::kCacheLine);

// Fills `out` with up to `capacity` return addresses of the calling thread's stack,
// innermost first; returns how many.
using StackWalker = uint32_t (*)(uintptr_t* out, uint32_t capacity);

class ObjectRegistry {
 public:
  constexpr ObjectRegistry() = default;

  // Maps room for 2^capacity_log2 records. Returns false when the memory is unavailable
  // (then every lookup returns null). `walk` gives the call chain of an object's first
  // acquisition (none: its call site only).
  QUARTZ_NOINSTR bool configure(uint32_t capacity_log2, StackWalker walk = nullptr) {
    walk_ = walk;
    return table_.configure(capacity_log2);
  }

  // The record for `address`, created with `kind` and `site` if new (or completed, if it
  // was only named so far); null when full. The caller that gives an object its site also
  // unwinds the call chain above `site` (the return address of the pthread function
  // called), once per object.
  QUARTZ_NOINSTR ObjectRecord* find_or_insert(uintptr_t address, EntryKind kind, uintptr_t site);
  // The record for `address`, or null.
  QUARTZ_NOINSTR ObjectRecord* find(uintptr_t address) const;
  QUARTZ_NOINSTR void set_name(uintptr_t address, const char* name);
  // Copies the name (empty when unnamed) into `out`, kObjectNameBytes long.
  QUARTZ_NOINSTR static void copy_name(const ObjectRecord& record, char* out);

  // Records that can be in use (every level of the table), and how many are.
  QUARTZ_NOINSTR uint32_t max_records() const { return table_.max_records(); }
  QUARTZ_NOINSTR uint32_t count() const { return table_.claimed_count(); }
  // A record's place in the order first used, from 0 (below count()).
  QUARTZ_NOINSTR uint32_t order_of(const ObjectRecord& r) const { return table_.order_of(r); }
  // Calls visit(const ObjectRecord&) on every record in use, in the order first used.
  template <class Visit>
  QUARTZ_NOINSTR void for_each(Visit&& visit) const {
    table_.for_each_claimed(visit);
  }
  // Objects that found no room.
  QUARTZ_NOINSTR uint64_t dropped() const { return table_.dropped(); }

  // Forked child: the counters (acquisitions, contention, waits, posts) are the parent's.
  QUARTZ_NOINSTR void reset_counters();

 private:
  SharedTable<ObjectRecord> table_;
  StackWalker walk_ = nullptr;
};

}  // namespace quartz::rt
