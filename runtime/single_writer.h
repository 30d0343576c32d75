// Counters with exactly one writer (the owning thread) and lock-free readers.
#pragma once

#include <atomic>
#include <cstdint>

#include "support/attributes.h"

namespace quartz::rt {

// A load and a store: no read-modify-write atomic on the hot path (DESIGN.md §3).
QUARTZ_ALWAYS_INLINE void bump(std::atomic<uint64_t>& counter, uint64_t by = 1) {
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace quartz::rt
