#include "runtime/call_graph.h"

#include <new>

#include "runtime/mapped_memory.h"
#include "runtime/thread_counters.h"

namespace quartz::rt {
namespace {
constexpr uint32_t kMaxSharedProbes = 64;
enum : uint32_t { kEmpty = 0, kClaiming = 1, kReady = 2 };
}  // namespace

bool CallGraph::configure(uint32_t capacity_log2) {
  const uint32_t capacity = uint32_t{1} << capacity_log2;
  void* memory = map_zeroed(sizeof(CallGraphRecord) * capacity);
  if (!memory) return false;
  records_ = new (memory) CallGraphRecord[capacity];
  mask_ = capacity - 1;
  shift_ = 64 - capacity_log2;
  return true;
}

void CallGraph::add(uintptr_t caller, uintptr_t callee, uint64_t calls) {
  if (!records_ || calls == 0) return;
  const uint32_t home = fib_hash(callee ^ (caller >> 2), shift_);
  for (uint32_t probe = 0; probe <= mask_ && probe < kMaxSharedProbes; ++probe) {
    CallGraphRecord& r = records_[(home + probe) & mask_];
    uint32_t state = r.state.load(std::memory_order_acquire);
    if (state == kEmpty) {
      if (r.state.compare_exchange_strong(state, kClaiming, std::memory_order_acq_rel)) {
        r.caller.store(caller, std::memory_order_relaxed);
        r.callee.store(callee, std::memory_order_relaxed);
        r.calls.fetch_add(calls, std::memory_order_relaxed);
        r.state.store(kReady, std::memory_order_release);
        return;
      }
    }
    if (state == kReady && r.callee.load(std::memory_order_relaxed) == callee &&
        r.caller.load(std::memory_order_relaxed) == caller) {
      r.calls.fetch_add(calls, std::memory_order_relaxed);
      return;
    }
  }
  dropped_.fetch_add(calls, std::memory_order_relaxed);
}

void CallGraph::reset_counters() {
  for (uint32_t i = 0; i < capacity(); ++i) {
    if (records_[i].state.load(std::memory_order_relaxed) == kEmpty) continue;
    records_[i].calls.store(0, std::memory_order_relaxed);
    if (records_[i].state.load(std::memory_order_relaxed) == kClaiming) {
      records_[i].state.store(kReady, std::memory_order_relaxed);  // claimer died in fork
    }
  }
}

}  // namespace quartz::rt
