#include "runtime/call_graph.h"

namespace quartz::rt {
namespace {
enum : uint32_t { kEmpty = 0, kClaiming = 1, kReady = 2 };
}  // namespace

void CallGraph::add(uintptr_t caller, uintptr_t callee, uint64_t calls) {
  if (calls == 0 || !table_.configured()) return;
  CallGraphRecord* edge = table_.probe(callee ^ (caller >> 2), [&](CallGraphRecord& r) {
    uint32_t state = r.state.load(std::memory_order_acquire);
    if (state == kEmpty &&
        r.state.compare_exchange_strong(state, kClaiming, std::memory_order_acq_rel)) {
      r.caller.store(caller, std::memory_order_relaxed);
      r.callee.store(callee, std::memory_order_relaxed);
      r.calls.fetch_add(calls, std::memory_order_relaxed);
      r.state.store(kReady, std::memory_order_release);
      table_.note_claimed(r);
      return Probe::found;
    }
    // (A record still being claimed is passed: the edge may then take two records.)
    if (state != kReady || r.callee.load(std::memory_order_relaxed) != callee ||
        r.caller.load(std::memory_order_relaxed) != caller) {
      return Probe::next;
    }
    r.calls.fetch_add(calls, std::memory_order_relaxed);
    return Probe::found;
  });
  if (!edge) table_.count_dropped(calls);
}

void CallGraph::reset_counters() {
  table_.for_each_claimed([](CallGraphRecord& r) {
    r.calls.store(0, std::memory_order_relaxed);
    if (r.state.load(std::memory_order_relaxed) == kClaiming) {
      r.state.store(kReady, std::memory_order_relaxed);  // claimer died in fork
    }
  });
}

}  // namespace quartz::rt
