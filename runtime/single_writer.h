// Counters with exactly one writer (the owning thread) and lock-free readers.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>

#include "support/attributes.h"

namespace quartz::rt {

// A load and a store: no read-modify-write atomic on the hot path (DESIGN.md §3).
template <typename Count>
QUARTZ_ALWAYS_INLINE void bump(std::atomic<Count>& counter, std::type_identity_t<Count> by = 1) {
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace quartz::rt
