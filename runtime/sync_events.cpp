#include "runtime/sync_events.h"

namespace quartz::rt {

void count_acquisition(ThreadBlock& block, ObjectRegistry& objects, uintptr_t object,
                       EntryKind kind, uintptr_t site, bool contended, uint64_t wait_ticks) {
  bool inserted = false;
  ObjectCountSlot* slot = block.objects.find(object, &inserted);
  count_found_acquisition(block, objects, slot, inserted, object, kind, site, contended,
                          wait_ticks);
}

void count_found_acquisition(ThreadBlock& block, ObjectRegistry& objects, ObjectCountSlot* slot,
                             bool inserted, uintptr_t object, EntryKind kind, uintptr_t site,
                             bool contended, uint64_t wait_ticks) {
  if (slot) {
    if (inserted) objects.find_or_insert(object, kind, site);
    bump(slot->acquisitions);
    if (contended) {
      bump(slot->contended);
      bump(slot->wait_ticks, wait_ticks);
    }
    return;
  }
  // The thread's table is full: count in the shared record, with atomics (found once: each
  // probe of a registry of many objects is a cache miss or more).
  bump(block.spilled_events);
  if (ObjectRecord* record = objects.find_or_insert(object, kind, site)) {
    record->acquisitions.fetch_add(1, std::memory_order_relaxed);
    if (contended) {
      record->contended.fetch_add(1, std::memory_order_relaxed);
      record->wait_ticks.fetch_add(wait_ticks, std::memory_order_relaxed);
    }
  }
}

Wait begin_wait(ThreadBlock& block, uintptr_t object, EntryKind kind, ThreadState waiting,
                uint64_t now_ticks) {
  const Wait wait{object, kind, waiting, block.state.load(std::memory_order_relaxed), now_ticks};
  block.stack.push(object, make_tag(kind, EntryRole::waiting));
  block.state.store(waiting, std::memory_order_release);
  return wait;
}

namespace {
QUARTZ_NOINSTR void leave_wait_state(ThreadBlock& block, const Wait& wait, uint64_t elapsed) {
  block.state.store(wait.previous, std::memory_order_release);
  bump(wait.waiting == ThreadState::spinning ? block.spinning_ticks : block.blocked_ticks, elapsed);
}
}  // namespace

void end_wait_acquired(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
                       uintptr_t site, uint64_t now_ticks) {
  const uint64_t elapsed = now_ticks - wait.started_ticks;
  block.stack.set_role(wait.object, EntryRole::holding);
  leave_wait_state(block, wait, elapsed);
  count_acquisition(block, objects, wait.object, wait.kind, site, true, elapsed);
}

void end_wait(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait, WaitOutcome outcome,
              uintptr_t site, uint64_t now_ticks) {
  const uint64_t elapsed = now_ticks - wait.started_ticks;
  block.stack.pop_object(wait.object);
  leave_wait_state(block, wait, elapsed);
  if (outcome == WaitOutcome::failed) return;
  const bool waited = outcome == WaitOutcome::waited;
  count_acquisition(block, objects, wait.object, wait.kind, site, waited, waited ? elapsed : 0);
}

Wait begin_condition_wait(ThreadBlock& block, uintptr_t condition, uintptr_t mutex,
                          uint64_t now_ticks) {
  block.stack.set_role(mutex, EntryRole::released);
  return begin_wait(block, condition, EntryKind::condition, ThreadState::blocked, now_ticks);
}

void end_condition_wait(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
                        uintptr_t mutex, WaitOutcome outcome, uintptr_t site, uint64_t now_ticks) {
  end_wait(block, objects, wait, outcome, site, now_ticks);
  block.stack.set_role(mutex, EntryRole::holding);
}

}  // namespace quartz::rt
