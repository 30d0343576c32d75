#include "runtime/merged_counts.h"

namespace quartz::rt {

ThreadTotals block_totals(const ThreadBlock& block) {
  ThreadTotals totals;
  block.edges.for_each_claimed(
      [&](const CallEdgeSlot& s) { totals.calls += s.calls.load(std::memory_order_relaxed); });
  totals.overflows = block.stack.overflows();
  totals.mismatches = block.stack.mismatches();
  totals.blocked_ticks = block.blocked_ticks.load(std::memory_order_relaxed);
  totals.spinning_ticks = block.spinning_ticks.load(std::memory_order_relaxed);
  totals.depth = block.stack.depth();
  return totals;
}

bool MergedCounts::reserve(const Runtime& runtime) {
  // The table's slots and its claimed list, in slots.
  const size_t unregistered_slots =
      (ObjectCountTable::bytes_for(kUnregisteredLog2) + sizeof(ObjectCountSlot) - 1) /
      sizeof(ObjectCountSlot);
  if (!threads_.reserve(ThreadHistory::kMaxThreads) ||
      !objects_.reserve(runtime.objects.max_records()) ||
      !unregistered_slots_.reserve(unregistered_slots) ||
      !unregistered_slots_.resize_at_least(unregistered_slots)) {
    return false;
  }
  unregistered_.reset(unregistered_slots_.data(), kUnregisteredLog2);
  return true;
}

void MergedCounts::gather(Runtime& runtime) {
  // Forget the last gather: a thread folded since then answers from its record.
  for (size_t i = 0; i < threads_.size(); ++i) threads_[i] = GatheredThread{};
  // By the registry's order: its records in use, densely (the table grows in levels).
  if (!objects_.resize_at_least(runtime.objects.count())) return;
  for (uint32_t i = 0; i < runtime.objects.count(); ++i) objects_[i] = ObjectTotals{};
  unregistered_.clear();
  open_stack_entries_ = 0;
  runtime.threads.for_each([&](ThreadSlot& slot, SlotStatus) {
    const ThreadBlock* b = slot.block.load(std::memory_order_acquire);
    if (!b) return;
    if (threads_.resize_at_least(size_t{b->index} + 1)) {
      threads_[b->index] = GatheredThread{block_totals(*b), 1};
      open_stack_entries_ += threads_[b->index].totals.depth;
    }
    b->objects.for_each_claimed([&](const ObjectCountSlot& s) {
      const uintptr_t address = s.address.load(std::memory_order_acquire);
      const uint64_t acquisitions = s.acquisitions.load(std::memory_order_relaxed);
      const uint64_t contended = s.contended.load(std::memory_order_relaxed);
      const uint64_t wait_ticks = s.wait_ticks.load(std::memory_order_relaxed);
      if (const ObjectRecord* r = runtime.objects.find(address)) {
        // (One claimed since, or still being listed, is counted at the next gather.)
        const uint32_t order = runtime.objects.order_of(*r);
        if (order >= objects_.size()) return;
        ObjectTotals& t = objects_[order];
        t.acquisitions += acquisitions;
        t.contended += contended;
        t.wait_ticks += wait_ticks;
        return;
      }
      bool inserted;
      if (ObjectCountSlot* u = unregistered_.find(address, &inserted)) {
        u->acquisitions.store(u->acquisitions.load(std::memory_order_relaxed) + acquisitions,
                              std::memory_order_relaxed);
        u->contended.store(u->contended.load(std::memory_order_relaxed) + contended,
                           std::memory_order_relaxed);
        u->wait_ticks.store(u->wait_ticks.load(std::memory_order_relaxed) + wait_ticks,
                            std::memory_order_relaxed);
      }
    });
  });
}

ThreadTotals MergedCounts::thread(const ThreadRecord& record, uint32_t index) const {
  if (record.phase.load(std::memory_order_acquire) != ThreadPhase::exited &&
      index < threads_.size() && threads_[index].gathered) {
    return threads_[index].totals;
  }
  ThreadTotals totals;
  totals.calls = record.calls.load(std::memory_order_relaxed);
  totals.overflows = record.overflows.load(std::memory_order_relaxed);
  totals.mismatches = record.mismatches.load(std::memory_order_relaxed);
  totals.blocked_ticks = record.blocked_ticks.load(std::memory_order_relaxed);
  totals.spinning_ticks = record.spinning_ticks.load(std::memory_order_relaxed);
  return totals;
}

ObjectTotals MergedCounts::object(const Runtime& runtime, uintptr_t address,
                                  const ObjectRecord* record) const {
  ObjectTotals totals;
  if (record) {
    const uint32_t order = runtime.objects.order_of(*record);
    if (order < objects_.size()) totals = objects_[order];
    totals.acquisitions += record->acquisitions.load(std::memory_order_relaxed);
    totals.contended += record->contended.load(std::memory_order_relaxed);
    totals.wait_ticks += record->wait_ticks.load(std::memory_order_relaxed);
  } else if (const ObjectCountSlot* u = unregistered_.lookup(address)) {
    totals.acquisitions = u->acquisitions.load(std::memory_order_relaxed);
    totals.contended = u->contended.load(std::memory_order_relaxed);
    totals.wait_ticks = u->wait_ticks.load(std::memory_order_relaxed);
  }
  return totals;
}

}  // namespace quartz::rt
