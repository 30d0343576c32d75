// What a synchronization wrapper does to the calling thread's block (DESIGN.md §2
// "Synchronization objects"): an object is pushed on the profile stack before it is
// requested and popped after it is released, so its record holds both the wait and the
// hold; the thread's state says whether it waits spinning or blocked.
//
// Everything here touches only the calling thread's own block, except the first use of
// an object by a thread, which registers it process-wide. How many threads wait for an
// object is not counted here: a reader sees it on the stacks (waiting entries).
// Times are in ticks (clock.h).
#pragma once

#include <cstdint>

#include "runtime/object_registry.h"
#include "runtime/thread_block.h"
#include "support/attributes.h"

namespace quartz::rt {

// A wait in progress, returned by begin_wait and handed back to end_wait.
struct Wait {
  uintptr_t object;
  EntryKind kind;
  ThreadState waiting;   // spinning or blocked
  ThreadState previous;  // the state to return to
  uint64_t started_ticks;
};

// Counts one acquisition of `object` in the thread's own table (registering the object
// process-wide on the thread's first use). `site` is the acquiring call's return address.
QUARTZ_NOINSTR void count_acquisition(ThreadBlock& block, ObjectRegistry& objects, uintptr_t object,
                                      EntryKind kind, uintptr_t site, bool contended,
                                      uint64_t wait_ticks);
// count_acquisition after the thread's table was searched: `slot` is null when the table
// is full, `inserted` when the search just added the object.
QUARTZ_NOINSTR void count_found_acquisition(ThreadBlock& block, ObjectRegistry& objects,
                                            ObjectCountSlot* slot, bool inserted, uintptr_t object,
                                            EntryKind kind, uintptr_t site, bool contended,
                                            uint64_t wait_ticks);

// The object was granted without waiting: it goes on the stack as held.
QUARTZ_ALWAYS_INLINE void on_acquired(ThreadBlock& block, ObjectRegistry& objects, uintptr_t object,
                                      EntryKind kind, uintptr_t site) {
  block.stack.push(object, make_tag(kind, EntryRole::holding));
  bool inserted;
  ObjectCountSlot* slot = block.objects.find(object, &inserted);
  if (QUARTZ_LIKELY(slot != nullptr && !inserted)) {
    bump(slot->acquisitions);
    return;
  }
  count_found_acquisition(block, objects, slot, inserted, object, kind, site, false, 0);
}

// The object was released: it leaves the stack.
QUARTZ_ALWAYS_INLINE void on_released(ThreadBlock& block, uintptr_t object) {
  block.stack.pop_object(object);
}

// The thread is about to wait for `object`, spinning or blocked.
QUARTZ_NOINSTR Wait begin_wait(ThreadBlock& block, uintptr_t object, EntryKind kind,
                               ThreadState waiting, uint64_t now_ticks);
// The wait ended with the object granted: it stays on the stack, now held.
QUARTZ_NOINSTR void end_wait_acquired(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
                                      uintptr_t site, uint64_t now_ticks);

// How a wait that leaves nothing held ended.
enum class WaitOutcome {
  failed,  // timed out or failed: not an acquisition
  waited,  // completed after waiting: a contended acquisition
  passed,  // completed without having to wait (the last thread at a barrier)
};
// The wait ended and nothing is held (a barrier, a semaphore, a join, a condition, a
// timeout, an error).
QUARTZ_NOINSTR void end_wait(ThreadBlock& block, ObjectRegistry& objects, const Wait& wait,
                             WaitOutcome outcome, uintptr_t site, uint64_t now_ticks);

// A condition wait gives up `mutex` while waiting on `condition` and takes it back before
// returning: the mutex stays on the stack, marked released, under the condition.
QUARTZ_NOINSTR Wait begin_condition_wait(ThreadBlock& block, uintptr_t condition, uintptr_t mutex,
                                         uint64_t now_ticks);
QUARTZ_NOINSTR void end_condition_wait(ThreadBlock& block, ObjectRegistry& objects,
                                       const Wait& wait, uintptr_t mutex, WaitOutcome outcome,
                                       uintptr_t site, uint64_t now_ticks);

}  // namespace quartz::rt
