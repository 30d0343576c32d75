// Wrappers for mutexes, reader-writer locks and spin locks (std::mutex,
// std::recursive_mutex, std::timed_mutex and std::shared_mutex come through here).
// A contended mutex or rwlock blocks; a contended spin lock spins.
#include <pthread.h>

#include "runtime/interpose.h"

using namespace quartz::rt;

namespace {
// Another thread holds the mutex: its lock word is set (glibc's layout, the same for
// every mutex type) and the owner is not us (a recursive or error-checking relock).
QUARTZ_ALWAYS_INLINE bool mutex_taken(const pthread_mutex_t* m, const ThreadBlock& block) {
  if (__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED) == 0) return false;
  return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) !=
         block.tid.load(std::memory_order_relaxed);
}
// Reader-writer and spin locks have no portable lock word (glibc's x86-64 spin lock counts
// down from 1): the try says whether it is taken.
QUARTZ_ALWAYS_INLINE bool not_known(const ThreadBlock&) { return false; }
}  // namespace

// ---- mutex -----------------------------------------------------------------------------

QUARTZ_EXPORT int pthread_mutex_lock(pthread_mutex_t* m) {
  if (!have_real<real::pthread_mutex_lock>()) return ENOSYS;
  return acquire_object<EntryKind::mutex, ThreadState::blocked>(
      m, QUARTZ_CALL_SITE(), [m](const ThreadBlock& b) { return mutex_taken(m, b); },
      [m] { return real::pthread_mutex_trylock(m); },
      [m] { return real::pthread_mutex_lock(m); });
}

QUARTZ_EXPORT int pthread_mutex_trylock(pthread_mutex_t* m) {
  if (!have_real<real::pthread_mutex_trylock>()) return ENOSYS;
  return try_object<EntryKind::mutex>(m, QUARTZ_CALL_SITE(),
                                      [m] { return real::pthread_mutex_trylock(m); });
}

QUARTZ_EXPORT int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* deadline) {
  if (!have_real<real::pthread_mutex_timedlock>()) return ENOSYS;
  return acquire_object<EntryKind::mutex, ThreadState::blocked>(
      m, QUARTZ_CALL_SITE(), [m](const ThreadBlock& b) { return mutex_taken(m, b); },
      [m] { return real::pthread_mutex_trylock(m); },
      [m, deadline] { return real::pthread_mutex_timedlock(m, deadline); });
}

QUARTZ_EXPORT int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock,
                                          const struct timespec* deadline) {
  if (!have_real<real::pthread_mutex_clocklock>()) return ENOSYS;
  return acquire_object<EntryKind::mutex, ThreadState::blocked>(
      m, QUARTZ_CALL_SITE(), [m](const ThreadBlock& b) { return mutex_taken(m, b); },
      [m] { return real::pthread_mutex_trylock(m); },
      [m, clock, deadline] { return real::pthread_mutex_clocklock(m, clock, deadline); });
}

QUARTZ_EXPORT int pthread_mutex_unlock(pthread_mutex_t* m) {
  if (!have_real<real::pthread_mutex_unlock>()) return ENOSYS;
  return release_object(m, [m] { return real::pthread_mutex_unlock(m); });
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
  return release_object(l, [l] { return real::pthread_rwlock_unlock(l); });
}

// ---- spin lock -------------------------------------------------------------------------

QUARTZ_EXPORT int pthread_spin_lock(pthread_spinlock_t* s) {
  if (!have_real<real::pthread_spin_lock>()) return ENOSYS;
  return acquire_object<EntryKind::spinlock, ThreadState::spinning>(
      s, QUARTZ_CALL_SITE(),
      not_known, [s] { return real::pthread_spin_trylock(s); }, [s] { return real::pthread_spin_lock(s); });
}

QUARTZ_EXPORT int pthread_spin_trylock(pthread_spinlock_t* s) {
  if (!have_real<real::pthread_spin_trylock>()) return ENOSYS;
  return try_object<EntryKind::spinlock>(s,
                                         QUARTZ_CALL_SITE(),
                                         [s] { return real::pthread_spin_trylock(s); });
}

QUARTZ_EXPORT int pthread_spin_unlock(pthread_spinlock_t* s) {
  if (!have_real<real::pthread_spin_unlock>()) return ENOSYS;
  return release_object(s,
                        [s] { return real::pthread_spin_unlock(s); });
}
