#include "runtime/sync_events.h"

namespace quartz::rt {

void count_acquisition(ThreadBlock& block, ObjectRegistry& objects, uintptr_t object,
                       EntryKind kind, uintptr_t site, bool contended, uint64_t wait_ns) {
  bool inserted = false;
  ObjectCountSlot* slot = block.objects.find(object, &inserted);
  count_found_acquisition(block, objects, slot, inserted, object, kind, site, contended, wait_ns);
}

void count_found_acquisition(ThreadBlock& block, ObjectRegistry& objects, ObjectCountSlot* slot,
                             bool inserted, uintptr_t object, EntryKind kind, uintptr_t site,
                             bool contended, uint64_t wait_ns) {
  if (inserted || !slot) objects.find_or_insert(object, kind, site);
  if (slot) {
    bump(slot->acquisitions);
    if (contended) {
      bump(slot->contended);
      bump(slot->wait_ns, wait_ns);
    }
    return;
  }
  // The thread's table is full: count in the shared record, with atomics.
  bump(block.spilled_events);
  if (ObjectRecord* record = objects.find(object)) {
    record->acquisitions.fetch_add(1, std::memory_order_relaxed);
    if (contended) {
      record->contended.fetch_add(1, std::memory_order_relaxed);
      record->wait_ns.fetch_add(wait_ns, std::memory_order_relaxed);
    }
  }
}

Wait begin_wait(ThreadBlock& block, ObjectRegistry& objects, uintptr_t object, EntryKind kind,
                ThreadState waiting, uintptr_t site, uint64_t now_ns) {
  Wait wait{object, kind, block.state.load(std::memory_order_relaxed), now_ns,
            objects.find_or_insert(object, kind, site)};
  block.stack.push(object, make_tag(kind, EntryRole::waiting));
  if (wait.record) wait.record->waiters.fetch_add(1, std::memory_order_relaxed);
  block.state.store(waiting, std::memory_order_release);
  return wait;
}

namespace {
QUARTZ_NOINSTR void leave_wait_state(ThreadBlock& block, const Wait& wait, uint64_t elapsed_ns) {
  const ThreadState waited_as = block.state.load(std::memory_order_relaxed);
  block.state.store(wait.previous, std::memory_order_release);
  if (wait.record) wait.record->waiters.fetch_sub(1, std::memory_order_relaxed);
  bump(waited_as == ThreadState::spinning ? block.spinning_ns : block.blocked_ns, elapsed_ns);
}
}  // namespace

void end_wait_acquired(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
                       uintptr_t site, uint64_t now_ns) {
  const uint64_t elapsed = now_ns - wait.started_ns;
  block.stack.set_role(wait.object, EntryRole::holding);
  leave_wait_state(block, wait, elapsed);
  count_acquisition(block, objects, wait.object, wait.kind, site, true, elapsed);
}

void end_wait(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
              WaitOutcome outcome, uintptr_t site, uint64_t now_ns) {
  const uint64_t elapsed = now_ns - wait.started_ns;
  block.stack.pop_object(wait.object);
  leave_wait_state(block, wait, elapsed);
  if (outcome == WaitOutcome::failed) return;
  const bool waited = outcome == WaitOutcome::waited;
  count_acquisition(block, objects, wait.object, wait.kind, site, waited, waited ? elapsed : 0);
}

Wait begin_condition_wait(ThreadBlock& block, ObjectRegistry& objects, uintptr_t condition,
                          uintptr_t mutex, uintptr_t site, uint64_t now_ns) {
  block.stack.set_role(mutex, EntryRole::released);
  return begin_wait(block, objects, condition, EntryKind::condition, ThreadState::blocked, site,
                    now_ns);
}

void end_condition_wait(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
                        uintptr_t mutex, WaitOutcome outcome, uintptr_t site,
                        uint64_t now_ns) {
  end_wait(block, objects, wait, outcome, site, now_ns);
  block.stack.set_role(mutex, EntryRole::holding);
}

}  // namespace quartz::rt
