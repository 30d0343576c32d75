#include "runtime/thread_counters.h"

namespace quartz::rt {

void CallEdgeTable::reset(CallEdgeSlot* slots, uint32_t capacity_log2) {
  slots_ = slots;
  mask_ = (uint32_t{1} << capacity_log2) - 1;
  shift_ = 64 - capacity_log2;
  slots_[0].claimed.store(0, std::memory_order_relaxed);
}

CallEdgeSlot* CallEdgeTable::count(uintptr_t caller, uintptr_t callee) {
  const uint32_t start = home(caller, callee);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    CallEdgeSlot& s = slots_[(start + probe) & mask_];
    const uintptr_t key = s.callee.load(std::memory_order_relaxed);
    if (key == 0) {
      s.caller.store(caller, std::memory_order_relaxed);
      s.calls.store(1, std::memory_order_relaxed);
      s.callee.store(callee, std::memory_order_release);
      // Listed after its key: a reader that finds it in the list finds it whole.
      const uint32_t n = slots_[0].claimed.load(std::memory_order_relaxed);
      slots_[n].claimed_at.store((start + probe) & mask_, std::memory_order_relaxed);
      slots_[0].claimed.store(n + 1, std::memory_order_release);
      return &s;
    }
    if (key == callee && s.caller.load(std::memory_order_relaxed) == caller) {
      bump(s.calls);
      return &s;
    }
  }
  return nullptr;
}

// Keys stay: a thread that reuses this block usually runs the same code, and an edge
// with no calls is not reported.
void CallEdgeTable::clear() {
  const uint32_t n = slots_[0].claimed.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) claimed_slot(i).calls.store(0, std::memory_order_relaxed);
}

size_t ObjectCountTable::bytes_for(uint32_t capacity_log2) {
  const size_t slots = size_t{1} << capacity_log2;
  return slots * sizeof(ObjectCountSlot) + (slots + 1) * sizeof(uint32_t);
}

void ObjectCountTable::reset(ObjectCountSlot* slots, uint32_t capacity_log2) {
  slots_ = slots;
  mask_ = (uint32_t{1} << capacity_log2) - 1;
  shift_ = 64 - capacity_log2;
}

ObjectCountSlot* ObjectCountTable::find_slow(uintptr_t address, bool* inserted) {
  const uint32_t home = fib_hash(address, shift_);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    ObjectCountSlot& s = slots_[(home + probe) & mask_];
    const uintptr_t key = s.address.load(std::memory_order_relaxed);
    if (key == address) {
      *inserted = false;
      return &s;
    }
    if (key == 0) {
      s.acquisitions.store(0, std::memory_order_relaxed);
      s.contended.store(0, std::memory_order_relaxed);
      s.wait_ticks.store(0, std::memory_order_relaxed);
      s.address.store(address, std::memory_order_release);
      // Listed after its key: a reader that finds it in the list finds it whole.
      const uint32_t n = claimed_count().load(std::memory_order_relaxed);
      claimed_at(n).store((home + probe) & mask_, std::memory_order_relaxed);
      claimed_count().store(n + 1, std::memory_order_release);
      *inserted = true;
      return &s;
    }
  }
  *inserted = false;  // full: callers read it with the null slot (UBSan: an unset bool)
  return nullptr;
}

const ObjectCountSlot* ObjectCountTable::lookup(uintptr_t address) const {
  const uint32_t home = fib_hash(address, shift_);
  for (uint32_t probe = 0; probe < kMaxProbes; ++probe) {
    const ObjectCountSlot& s = slots_[(home + probe) & mask_];
    const uintptr_t key = s.address.load(std::memory_order_acquire);
    if (key == address) return &s;
    if (key == 0) return nullptr;
  }
  return nullptr;
}

// Keys stay, as the call edges' do.
void ObjectCountTable::clear() {
  const uint32_t n = claimed_count().load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < n; ++i) {
    ObjectCountSlot& s = slots_[claimed_at(i).load(std::memory_order_relaxed)];
    s.acquisitions.store(0, std::memory_order_relaxed);
    s.contended.store(0, std::memory_order_relaxed);
    s.wait_ticks.store(0, std::memory_order_relaxed);
  }
}

}  // namespace quartz::rt
