// Shared machinery of the pthread and semaphore wrappers (interpose_*.cpp).
//
// Every wrapper: finds the calling thread's block (passing straight through for the
// runtime's own threads, ended threads and recursion into the runtime), tries the
// operation without waiting, and only when that fails accounts for a wait around the
// real blocking call. errno is whatever the real functions leave.
#pragma once

#include <errno.h>

#include <cstdint>

#include "runtime/attributes.h"
#include "runtime/real.h"
#include "runtime/runtime.h"
#include "runtime/sync_events.h"

namespace quartz::rt {

// True when the real function is resolved (resolving now if it can be).
template <auto& real_function>
QUARTZ_ALWAYS_INLINE bool have_real() {
  if (QUARTZ_LIKELY(real_function != nullptr)) return true;
  ensure_initialized();
  return real_function != nullptr;
}

// The caller of the wrapper: the program's call site, which names unnamed locks.
#define QUARTZ_CALL_SITE() reinterpret_cast<uintptr_t>(__builtin_return_address(0))

// Acquires a lock-like object: `try_acquire()` first; if it does not succeed at once,
// `acquire()` (blocking or timed) inside an accounted wait. Both return pthread error
// codes; EOWNERDEAD (robust mutexes) still grants the lock.
template <EntryKind kind, ThreadState waiting, typename Try, typename Acquire>
QUARTZ_ALWAYS_INLINE int acquire_object(const volatile void* object, uintptr_t site, Try try_acquire,
                                        Acquire acquire) {
  ThreadBlock* block = current_block();
  if (QUARTZ_UNLIKELY(block == nullptr)) return acquire();
  const auto address = reinterpret_cast<uintptr_t>(object);
  ObjectRegistry& objects = runtime().objects;
  int rc = try_acquire();
  if (QUARTZ_LIKELY(rc == 0 || rc == EOWNERDEAD)) {
    on_acquired(*block, objects, address, kind, site);
    return rc;
  }
  const Wait wait = begin_wait(*block, objects, address, kind, waiting, site, now_ns());
  rc = acquire();
  if (rc == 0 || rc == EOWNERDEAD) {
    end_wait_acquired(*block, objects, wait, site, now_ns());
  } else {
    end_wait(*block, objects, wait, WaitOutcome::failed, site, now_ns());
  }
  return rc;
}

// A non-blocking attempt (the program's own trylock): counted only when it succeeds.
template <EntryKind kind, typename Try>
QUARTZ_ALWAYS_INLINE int try_object(const volatile void* object, uintptr_t site, Try try_acquire) {
  const int rc = try_acquire();
  if (rc != 0 && rc != EOWNERDEAD) return rc;
  if (ThreadBlock* block = current_block()) {
    on_acquired(*block, runtime().objects, reinterpret_cast<uintptr_t>(object), kind, site);
  }
  return rc;
}

// Releases a lock-like object; it leaves the stack only if the release succeeded.
template <typename Release>
QUARTZ_ALWAYS_INLINE int release_object(const volatile void* object, Release release) {
  const int rc = release();
  if (QUARTZ_LIKELY(rc == 0)) {
    ThreadBlock* block = t_local.block;  // a thread never seen before holds nothing of ours
    if (QUARTZ_LIKELY(block != nullptr)) on_released(*block, reinterpret_cast<uintptr_t>(object));
  }
  return rc;
}

// Counts a signal, broadcast or post on `object`.
QUARTZ_NOINSTR void count_post(const void* object, EntryKind kind, uintptr_t site);

}  // namespace quartz::rt
