// Wrappers for mutexes, reader-writer locks and spin locks (std::mutex,
// std::recursive_mutex, std::timed_mutex and std::shared_mutex come through here).
// A contended mutex or rwlock blocks; a contended spin lock spins.
#include <pthread.h>

#include "runtime/interpose.h"
#include "runtime/trace_events.h"

using namespace quartz::rt;
namespace support = quartz::support;

namespace {

// Mutexes are taken with the real lock directly: a trylock first would add a write to a
// contended cache line, and reading the lock word first a read (+90% on a lock two
// threads hand back and forth). The mutex goes on the stack as waited for, and after
// the lock returns its lock word, now in our own cache line, tells whether we came
// through glibc's waiter path: the last waiter leaves 2 where an uncontended lock leaves
// 1. (A thread starting to wait in the few nanoseconds before that read counts us as
// contended too; robust and priority-inheritance mutexes keep a TID there and always
// count uncontended: the sampler still sees their waits on the stack.)
QUARTZ_ALWAYS_INLINE bool came_through_waiters(const pthread_mutex_t* m) {
  return __atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 2;
}

template <typename Lock>
QUARTZ_NOINLINE int lock_unregistered(Lock lock) {
  return lock();
}

// The lock failed (an error-checking relock, a timeout): take back what lock_mutex did.
QUARTZ_NOINLINE int finish_failed_lock(ThreadBlock* block, pthread_mutex_t* m,
                                       ObjectCountSlot* slot, int rc) {
  block->stack.pop_object(reinterpret_cast<uintptr_t>(m));
  if (slot) bump(slot->acquisitions, ~uint64_t{0});  // minus one
  return rc;
}

QUARTZ_NOINLINE void count_contended(ObjectCountSlot* slot) {
  if (slot) bump(slot->contended);
}

// A recursive mutex taken again, or released but still held, by its owner is not a
// hand-off between threads: not traced.
QUARTZ_NOINLINE void trace_mutex_acquired(ThreadBlock* block, pthread_mutex_t* m,
                                          uint64_t requested, bool contended) {
  if (!relocked_mutex(m)) {
    trace_lock_acquired(*block, reinterpret_cast<uintptr_t>(m), EntryKind::mutex, requested,
                        contended);
  }
}

// Everything is counted before the lock is requested: work done between acquiring and
// returning lengthens the program's critical section (it doubles the futex sleeps of a
// lock two threads hand back and forth). Inside it there is one store (the
// entry becomes held) and one read of our own cache line.
template <bool kTraced, typename Lock>
QUARTZ_ALWAYS_INLINE int lock_registered(ThreadBlock* block, pthread_mutex_t* m, uintptr_t site,
                                         Lock lock) {
  const auto address = reinterpret_cast<uintptr_t>(m);
  bool inserted;
  ObjectCountSlot* slot = block->objects.find(address, &inserted);
  if (QUARTZ_LIKELY(slot != nullptr && !inserted)) {
    bump(slot->acquisitions);
  } else {
    count_found_acquisition(*block, runtime().objects, slot, inserted, address, EntryKind::mutex,
                            site, false, 0);
  }
  const uint64_t requested = kTraced ? support::ticks() : 0;
  const ProfileStack::Push push =
      block->stack.begin_push(address, make_tag(EntryKind::mutex, EntryRole::waiting));
  const int rc = lock();
  if (QUARTZ_UNLIKELY(rc != 0 && rc != EOWNERDEAD)) {
    block->stack.finish_push(push, address, make_tag(EntryKind::mutex, EntryRole::waiting));
    return finish_failed_lock(block, m, slot, rc);
  }
  block->stack.finish_push_as(push, address, make_tag(EntryKind::mutex, EntryRole::holding));
  const bool contended = came_through_waiters(m);
  if (QUARTZ_UNLIKELY(contended)) count_contended(slot);
  if constexpr (kTraced) trace_mutex_acquired(block, m, requested, contended);
  return rc;
}

// Tracing has a copy of its own, out of line: the untraced path keeps nothing live across
// the lock call for it.
template <typename Lock>
QUARTZ_NOINLINE int lock_traced(ThreadBlock* block, pthread_mutex_t* m, uintptr_t site, Lock lock) {
  return lock_registered<true>(block, m, site, lock);
}

template <typename Lock>
QUARTZ_ALWAYS_INLINE int lock_mutex(pthread_mutex_t* m, uintptr_t site, Lock lock) {
  ThreadBlock* block = t_local.block;
  if (QUARTZ_UNLIKELY(block == nullptr)) {
    block = current_block_slow();
    if (block == nullptr) return lock_unregistered(lock);
  }
  if (QUARTZ_UNLIKELY(block->trace != nullptr)) return lock_traced(block, m, site, lock);
  return lock_registered<false>(block, m, site, lock);
}

// Reader-writer and spin locks have no portable lock word (glibc's x86-64 spin lock counts
// down from 1): a trylock says whether they are taken. For a spin lock the waiter spins
// anyway, so the extra attempt costs it nothing it would not burn.
QUARTZ_ALWAYS_INLINE bool not_known(const ThreadBlock&) {
  return false;
}

}  // namespace

// ---- mutex -----------------------------------------------------------------------------

QUARTZ_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  if (!have_real<real::pthread_mutex_lock>()) return ENOSYS;
  return lock_mutex(m, QUARTZ_CALL_SITE(), [m] { return real::pthread_mutex_lock(m); });
}

QUARTZ_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  if (!have_real<real::pthread_mutex_trylock>()) return ENOSYS;
  return try_object<EntryKind::mutex>(m, QUARTZ_CALL_SITE(),
                                      [m] { return real::pthread_mutex_trylock(m); });
}

QUARTZ_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* deadline) {
  if (!have_real<real::pthread_mutex_timedlock>()) return ENOSYS;
  return lock_mutex(m, QUARTZ_CALL_SITE(),
                    [m, deadline] { return real::pthread_mutex_timedlock(m, deadline); });
}

QUARTZ_EXPORT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                          const struct timespec* deadline) {
  if (!have_real<real::pthread_mutex_clocklock>()) return ENOSYS;
  return lock_mutex(m, QUARTZ_CALL_SITE(), [m, clock, deadline] {
    return real::pthread_mutex_clocklock(m, clock, deadline);
  });
}

QUARTZ_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  if (!have_real<real::pthread_mutex_unlock>()) return ENOSYS;
  // Traced only when it hands the mutex on: not a recursive mutex still held after it, not
  // an unlock by a thread that does not own it (which fails).
  return release_object(
      m,
      [m](const ThreadBlock& b) {
        return relocked_mutex(m) || m->__data.__owner != b.tid.load(std::memory_order_relaxed)
                   ? EntryKind::procedure
                   : EntryKind::mutex;
      },
      [m] { return real::pthread_mutex_unlock(m); });
}

// ---- reader-writer lock ----------------------------------------------------------------

QUARTZ_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  if (!have_real<real::pthread_rwlock_rdlock>()) return ENOSYS;
  return acquire_object<EntryKind::rwlock_read, ThreadState::blocked>(
      l, QUARTZ_CALL_SITE(), not_known, [l] { return real::pthread_rwlock_tryrdlock(l); },
      [l] { return real::pthread_rwlock_rdlock(l); });
}

QUARTZ_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  if (!have_real<real::pthread_rwlock_tryrdlock>()) return ENOSYS;
  return try_object<EntryKind::rwlock_read>(l, QUARTZ_CALL_SITE(),
                                            [l] { return real::pthread_rwlock_tryrdlock(l); });
}

QUARTZ_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* deadline) {
  if (!have_real<real::pthread_rwlock_timedrdlock>()) return ENOSYS;
  return acquire_object<EntryKind::rwlock_read, ThreadState::blocked>(
      l, QUARTZ_CALL_SITE(), not_known, [l] { return real::pthread_rwlock_tryrdlock(l); },
      [l, deadline] { return real::pthread_rwlock_timedrdlock(l, deadline); });
}

QUARTZ_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock,
                                             const struct timespec* deadline) {
  if (!have_real<real::pthread_rwlock_clockrdlock>()) return ENOSYS;
  return acquire_object<EntryKind::rwlock_read, ThreadState::blocked>(
      l, QUARTZ_CALL_SITE(), not_known, [l] { return real::pthread_rwlock_tryrdlock(l); },
      [l, clock, deadline] { return real::pthread_rwlock_clockrdlock(l, clock, deadline); });
}

QUARTZ_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  if (!have_real<real::pthread_rwlock_wrlock>()) return ENOSYS;
  return acquire_object<EntryKind::rwlock_write, ThreadState::blocked>(
      l, QUARTZ_CALL_SITE(), not_known, [l] { return real::pthread_rwlock_trywrlock(l); },
      [l] { return real::pthread_rwlock_wrlock(l); });
}

QUARTZ_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  if (!have_real<real::pthread_rwlock_trywrlock>()) return ENOSYS;
  return try_object<EntryKind::rwlock_write>(l, QUARTZ_CALL_SITE(),
                                             [l] { return real::pthread_rwlock_trywrlock(l); });
}

QUARTZ_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* deadline) {
  if (!have_real<real::pthread_rwlock_timedwrlock>()) return ENOSYS;
  return acquire_object<EntryKind::rwlock_write, ThreadState::blocked>(
      l, QUARTZ_CALL_SITE(), not_known, [l] { return real::pthread_rwlock_trywrlock(l); },
      [l, deadline] { return real::pthread_rwlock_timedwrlock(l, deadline); });
}

QUARTZ_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock,
                                             const struct timespec* deadline) {
  if (!have_real<real::pthread_rwlock_clockwrlock>()) return ENOSYS;
  return acquire_object<EntryKind::rwlock_write, ThreadState::blocked>(
      l, QUARTZ_CALL_SITE(), not_known, [l] { return real::pthread_rwlock_trywrlock(l); },
      [l, clock, deadline] { return real::pthread_rwlock_clockwrlock(l, clock, deadline); });
}

QUARTZ_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  if (!have_real<real::pthread_rwlock_unlock>()) return ENOSYS;
  // glibc keeps the writer's thread id while write-locked.
  return release_object(
      l,
      [l](const ThreadBlock& b) {
        return l->__data.__cur_writer == b.tid.load(std::memory_order_relaxed)
                   ? EntryKind::rwlock_write
                   : EntryKind::rwlock_read;
      },
      [l] { return real::pthread_rwlock_unlock(l); });
}

// ---- spin lock -------------------------------------------------------------------------

QUARTZ_EXPORT int pthread_spin_lock(pthread_spinlock_t* s) {
  if (!have_real<real::pthread_spin_lock>()) return ENOSYS;
  return acquire_object<EntryKind::spinlock, ThreadState::spinning>(
      s, QUARTZ_CALL_SITE(), not_known, [s] { return real::pthread_spin_trylock(s); },
      [s] { return real::pthread_spin_lock(s); });
}

QUARTZ_EXPORT int pthread_spin_trylock(pthread_spinlock_t* s) {
  if (!have_real<real::pthread_spin_trylock>()) return ENOSYS;
  return try_object<EntryKind::spinlock>(s, QUARTZ_CALL_SITE(),
                                         [s] { return real::pthread_spin_trylock(s); });
}

QUARTZ_EXPORT int pthread_spin_unlock(pthread_spinlock_t* s) {
  if (!have_real<real::pthread_spin_unlock>()) return ENOSYS;
  return release_object(
      s, [](const ThreadBlock&) { return EntryKind::spinlock; },
      [s] { return real::pthread_spin_unlock(s); });
}
