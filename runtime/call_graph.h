// Process-wide caller -> callee call counts: edges folded from finished threads, and
// edges that found no room in a running thread's own table. A reader adds the tables of
// running threads (thread_counters.h).
//
// A SharedTable (shared_table.h). A record is claimed with a compare-and-swap on its
// state, then its key is written and the state set to ready; a writer that meets a
// record still being claimed moves on, so an edge can occasionally occupy two records
// and readers sum duplicates.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/shared_table.h"
#include "support/attributes.h"

namespace quartz::rt {

// Every member starts at zero: SharedTable maps records without constructing them.
struct CallGraphRecord {
  std::atomic<uint32_t> state{0};  // 0 empty, 1 being claimed, 2 ready
  std::atomic<uintptr_t> caller{0};
  std::atomic<uintptr_t> callee{0};
  std::atomic<uint64_t> calls{0};
};

class CallGraph {
 public:
  constexpr CallGraph() = default;

  QUARTZ_NOINSTR bool configure(uint32_t capacity_log2) { return table_.configure(capacity_log2); }
  // Adds `calls` to the edge; counts a drop when the table is full.
  QUARTZ_NOINSTR void add(uintptr_t caller, uintptr_t callee, uint64_t calls);

  // Calls visit(const CallGraphRecord&) on every record in use.
  template <class Visit>
  QUARTZ_NOINSTR void for_each(Visit&& visit) const {
    table_.for_each_claimed(visit);
  }
  QUARTZ_NOINSTR uint64_t dropped() const { return table_.dropped(); }
  // Forked child: the counts belong to the parent.
  QUARTZ_NOINSTR void reset_counters();

 private:
  SharedTable<CallGraphRecord> table_;
};

}  // namespace quartz::rt
