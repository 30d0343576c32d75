// The per-thread queue of trace events (`quartz run --trace`, DESIGN.md §3 "Trace"): the
// thread is its only producer, the sampler its only consumer (Boost.Lockfree's
// single-producer single-consumer ring). Fixed capacity, in the thread's block: a full
// queue never blocks the program, it counts the event as dropped.
#pragma once

#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstddef>
#include <cstdint>

#include "format/trace_format.h"
#include "support/attributes.h"

namespace quartz::rt {

// 32 bytes: time, object, what it is and how it pairs with others (format/trace_format.h).
struct TraceEvent {
  uint64_t ticks;
  uint64_t object;
  uint32_t sequence;
  uint32_t aux;
  uint32_t hooks;  // the thread's profile-stack sequence (two per hook event)
  trace::Type type;
  uint8_t kind;
  uint16_t unused;
};
static_assert(sizeof(TraceEvent) == 32);

// Hands the ring the storage its block reserved for it (the queue never allocates).
template <typename T>
struct RingStorage {
  using value_type = T;
  T* memory;
  explicit RingStorage(T* m) : memory(m) {}
  template <typename U>
  RingStorage(const RingStorage<U>& other) : memory(reinterpret_cast<T*>(other.memory)) {}
  T* allocate(size_t) { return memory; }
  void deallocate(T*, size_t) {}
  template <typename U>
  struct rebind {
    using other = RingStorage<U>;
  };
  bool operator==(const RingStorage&) const { return true; }
};

class TraceQueue {
 public:
  using Ring =
      boost::lockfree::spsc_queue<TraceEvent, boost::lockfree::allocator<RingStorage<TraceEvent>>>;

  // Bytes a queue of `capacity` events needs, itself included (the ring keeps one slot free).
  static size_t bytes_for(uint32_t capacity) {
    return sizeof(TraceQueue) + (size_t{capacity} + 1) * sizeof(TraceEvent);
  }
  QUARTZ_NOINSTR static TraceQueue* create_in(void* memory, uint32_t capacity);

  // Producer side.
  QUARTZ_ALWAYS_INLINE void push(const TraceEvent& event) {
    if (QUARTZ_UNLIKELY(!ring_.push(event))) {
      dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
  }
  // Consumer side: hands every queued event to `f`, in order; returns how many.
  template <typename F>
  QUARTZ_NOINSTR size_t drain(F f) {
    return ring_.consume_all(f);
  }
  // Events refused so far (written by the producer, read by the consumer).
  QUARTZ_NOINSTR uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }
  // For a block's next thread, once the consumer has drained this one's events.
  QUARTZ_NOINSTR void reset() {
    ring_.reset();
    dropped_.store(0, std::memory_order_relaxed);
  }

 private:
  TraceQueue(uint32_t capacity, TraceEvent* storage)
      : ring_(capacity, RingStorage<TraceEvent>(storage)) {}
  Ring ring_;
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace quartz::rt
