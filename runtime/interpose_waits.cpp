// Wrappers for condition variables, barriers and semaphores (std::condition_variable
// comes through here). Waiting on any of them blocks the thread.
#include <pthread.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/interpose.h"

using namespace quartz::rt;
namespace support = quartz::support;

namespace quartz::rt {
ObjectRecord* count_post(const void* object, EntryKind kind, uintptr_t site) {
  if (!current_block()) return nullptr;
  ObjectRecord* r =
      runtime().objects.find_or_insert(reinterpret_cast<uintptr_t>(object), kind, site);
  if (r) r->posts.fetch_add(1, std::memory_order_relaxed);
  return r;
}
}  // namespace quartz::rt

namespace {
// Waits on `cond` around `wait()`, which gives up and retakes `mutex`.
template <typename WaitFn>
QUARTZ_ALWAYS_INLINE int condition_wait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                        uintptr_t site, WaitFn wait) {
  ThreadBlock* block = current_block();
  if (!block) return wait();
  ObjectRegistry& objects = runtime().objects;
  const auto m = reinterpret_cast<uintptr_t>(mutex);
  const auto c = reinterpret_cast<uintptr_t>(cond);
  if (block->trace) trace_condition_wait(*block, c, m, site);
  const Wait w = begin_condition_wait(*block, c, m, support::ticks());
  const int rc = wait();
  end_condition_wait(*block, objects, w, m, rc == 0 ? WaitOutcome::waited : WaitOutcome::failed,
                     site, support::ticks());
  if (block->trace) trace_condition_woken(*block, c, m);
  return rc;
}

// sem_wait and friends report errors through errno: the failed sem_trywait of the fast
// path must not show, and our own calls after the real wait must not disturb its errno.
template <typename WaitFn>
QUARTZ_ALWAYS_INLINE int semaphore_wait(sem_t* sem, uintptr_t site, WaitFn wait) {
  ThreadBlock* block = current_block();
  if (!block) return wait();
  ObjectRegistry& objects = runtime().objects;
  const auto address = reinterpret_cast<uintptr_t>(sem);
  const int saved_errno = errno;
  if (real::sem_trywait(sem) == 0) {
    count_acquisition(*block, objects, address, EntryKind::semaphore, site, false, 0);
    if (block->trace) trace_semaphore_acquired(*block, address, 0, false);
    errno = saved_errno;
    return 0;
  }
  errno = saved_errno;
  const Wait w =
      begin_wait(*block, address, EntryKind::semaphore, ThreadState::blocked, support::ticks());
  errno = saved_errno;
  const int rc = wait();
  const int wait_errno = errno;
  end_wait(*block, objects, w, rc == 0 ? WaitOutcome::waited : WaitOutcome::failed, site,
           support::ticks());
  if (rc == 0 && block->trace) trace_semaphore_acquired(*block, address, w.started_ticks, true);
  errno = wait_errno;
  return rc;
}
}  // namespace

// ---- condition variable ----------------------------------------------------------------

QUARTZ_EXPORT int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (!have_real<real::pthread_cond_wait>()) return ENOSYS;
  return condition_wait(c, m, QUARTZ_CALL_SITE(), [c, m] { return real::pthread_cond_wait(c, m); });
}

QUARTZ_EXPORT int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m,
                                         const struct timespec* deadline) {
  if (!have_real<real::pthread_cond_timedwait>()) return ENOSYS;
  return condition_wait(c, m, QUARTZ_CALL_SITE(),
                        [c, m, deadline] { return real::pthread_cond_timedwait(c, m, deadline); });
}

QUARTZ_EXPORT int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock,
                                         const struct timespec* deadline) {
  if (!have_real<real::pthread_cond_clockwait>()) return ENOSYS;
  return condition_wait(c, m, QUARTZ_CALL_SITE(), [c, m, clock, deadline] {
    return real::pthread_cond_clockwait(c, m, clock, deadline);
  });
}

namespace {
QUARTZ_ALWAYS_INLINE void signal_condition(pthread_cond_t* c, bool broadcast, uintptr_t site) {
  count_post(c, EntryKind::condition, site);
  ThreadBlock* block = t_local.block;
  if (block && block->trace) {
    trace_condition_signal(*block, reinterpret_cast<uintptr_t>(c), broadcast, site);
  }
}
}  // namespace

QUARTZ_EXPORT int pthread_cond_signal(pthread_cond_t* c) {
  if (!have_real<real::pthread_cond_signal>()) return ENOSYS;
  signal_condition(c, false, QUARTZ_CALL_SITE());
  return real::pthread_cond_signal(c);
}

QUARTZ_EXPORT int pthread_cond_broadcast(pthread_cond_t* c) {
  if (!have_real<real::pthread_cond_broadcast>()) return ENOSYS;
  signal_condition(c, true, QUARTZ_CALL_SITE());
  return real::pthread_cond_broadcast(c);
}

// ---- barrier ---------------------------------------------------------------------------

QUARTZ_EXPORT int pthread_barrier_wait(pthread_barrier_t* b) {
  if (!have_real<real::pthread_barrier_wait>()) return ENOSYS;
  ThreadBlock* block = current_block();
  if (!block) return real::pthread_barrier_wait(b);
  const uintptr_t site = QUARTZ_CALL_SITE();
  ObjectRegistry& objects = runtime().objects;
  const auto address = reinterpret_cast<uintptr_t>(b);
  const uint32_t arrival = block->trace ? trace_barrier_arrive(*block, address, site) : 0;
  const Wait w =
      begin_wait(*block, address, EntryKind::barrier, ThreadState::blocked, support::ticks());
  const int rc = real::pthread_barrier_wait(b);
  // The serial thread is the last to arrive: it passes without waiting.
  const WaitOutcome outcome = rc == PTHREAD_BARRIER_SERIAL_THREAD ? WaitOutcome::passed
                              : rc == 0                           ? WaitOutcome::waited
                                                                  : WaitOutcome::failed;
  end_wait(*block, objects, w, outcome, site, support::ticks());
  if (block->trace && outcome != WaitOutcome::failed)
    trace_barrier_depart(*block, address, arrival);
  return rc;
}

QUARTZ_EXPORT int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr,
                                       unsigned count) {
  if (!have_real<real::pthread_barrier_init>()) return ENOSYS;
  const int rc = real::pthread_barrier_init(b, attr, count);
  if (rc == 0 && current_block()) {
    note_initialised(reinterpret_cast<uintptr_t>(b), EntryKind::barrier, count, QUARTZ_CALL_SITE());
  }
  return rc;
}

// ---- semaphore -------------------------------------------------------------------------

QUARTZ_EXPORT int sem_wait(sem_t* s) {
  if (!have_real<real::sem_wait>() || !have_real<real::sem_trywait>()) return ENOSYS;
  return semaphore_wait(s, QUARTZ_CALL_SITE(), [s] { return real::sem_wait(s); });
}

QUARTZ_EXPORT int sem_timedwait(sem_t* s, const struct timespec* deadline) {
  if (!have_real<real::sem_timedwait>() || !have_real<real::sem_trywait>()) return ENOSYS;
  return semaphore_wait(s, QUARTZ_CALL_SITE(),
                        [s, deadline] { return real::sem_timedwait(s, deadline); });
}

QUARTZ_EXPORT int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* deadline) {
  if (!have_real<real::sem_clockwait>() || !have_real<real::sem_trywait>()) return ENOSYS;
  return semaphore_wait(s, QUARTZ_CALL_SITE(),
                        [s, clock, deadline] { return real::sem_clockwait(s, clock, deadline); });
}

QUARTZ_EXPORT int sem_trywait(sem_t* s) {
  if (!have_real<real::sem_trywait>()) return ENOSYS;
  const int rc = real::sem_trywait(s);
  if (rc == 0) {
    if (ThreadBlock* block = current_block()) {
      const int saved_errno = errno;
      const auto address = reinterpret_cast<uintptr_t>(s);
      count_acquisition(*block, runtime().objects, address, EntryKind::semaphore,
                        QUARTZ_CALL_SITE(), false, 0);
      if (block->trace) trace_semaphore_acquired(*block, address, 0, false);
      errno = saved_errno;
    }
  }
  return rc;
}

QUARTZ_EXPORT int sem_post(sem_t* s) {
  if (!have_real<real::sem_post>()) return ENOSYS;
  const int saved_errno = errno;
  const uintptr_t site = QUARTZ_CALL_SITE();
  count_post(s, EntryKind::semaphore, site);
  ThreadBlock* block = t_local.block;
  if (block && block->trace) trace_semaphore_post(*block, reinterpret_cast<uintptr_t>(s), site);
  errno = saved_errno;
  return real::sem_post(s);
}

QUARTZ_EXPORT int sem_init(sem_t* s, int shared, unsigned value) {
  if (!have_real<real::sem_init>()) return ENOSYS;
  const int rc = real::sem_init(s, shared, value);
  if (rc == 0 && current_block()) {
    const int saved_errno = errno;
    note_initialised(reinterpret_cast<uintptr_t>(s), EntryKind::semaphore, value,
                     QUARTZ_CALL_SITE());
    errno = saved_errno;
  }
  return rc;
}

// ---- polling ----------------------------------------------------------------------------
// A thread that yields its processor again and again (sched_yield, std::this_thread::yield)
// polls for something: the sampler counts it spinning. glibc's sched_yield is the bare
// system call, made here.
QUARTZ_EXPORT int sched_yield() {
  if (ThreadBlock* block = t_local.block) bump(block->yields);
  return static_cast<int>(syscall(SYS_sched_yield));
}
