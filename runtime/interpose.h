// Shared machinery of the pthread and semaphore wrappers (interpose_*.cpp).
//
// Every wrapper finds the calling thread's block (passing straight through for the
// runtime's own threads, ended threads and recursion into the runtime), acquires without
// waiting when it can, and only when the object is taken accounts for a wait around the
// real blocking call. errno is whatever the real functions leave.
#pragma once

#include <errno.h>

#include <cstdint>

#include "runtime/real.h"
#include "runtime/runtime.h"
#include "runtime/sync_events.h"
#include "runtime/trace_events.h"
#include "support/attributes.h"

namespace quartz::rt {

// Names the calling thread in its record and places it by that name (user_api.cpp); an
// `annotated` name (ITT's) is the program's name for it, the kernel's left as it is.
QUARTZ_NOINSTR void name_current_thread(const char* name, bool annotated);

// True when the real function is resolved (resolving now if it can be).
template <auto& real_function>
QUARTZ_ALWAYS_INLINE bool have_real() {
  if (QUARTZ_LIKELY(real_function != nullptr)) return true;
  ensure_initialized();
  return real_function != nullptr;
}

// The caller of the wrapper: the program's call site, which names unnamed locks.
#define QUARTZ_CALL_SITE() reinterpret_cast<uintptr_t>(__builtin_return_address(0))

// The wait of acquire_object, out of line. A lock wait is counted (contended) but not
// timed: two clock reads would double the cost of a briefly contended lock, and the
// sampler measures how long threads wait (the waiting entry is on their stack).
template <EntryKind kind, ThreadState waiting, typename Acquire>
QUARTZ_NOINLINE int wait_for_object(ThreadBlock* block, uintptr_t address, uintptr_t site,
                                    Acquire acquire) {
  const uint64_t requested = block->trace ? support::ticks() : 0;
  const Wait wait = begin_wait(*block, address, kind, waiting, 0);
  const int rc = acquire();
  if (rc == 0 || rc == EOWNERDEAD) {
    end_wait_acquired(*block, runtime().objects, wait, site, 0);
    if (block->trace) trace_lock_acquired(*block, address, kind, requested, true);
  } else {
    end_wait(*block, runtime().objects, wait, WaitOutcome::failed, site, 0);
  }
  return rc;
}

template <typename Acquire>
QUARTZ_NOINLINE int acquire_unregistered(Acquire acquire) {
  return acquire();
}

// Acquires a lock-like object. `taken()` says whether another thread holds it now (a plain
// read of the lock word, which costs nothing when the lock is free and, unlike a failed
// trylock, no extra write when it is contended). If not, `try_acquire()` takes it
// directly; if it is taken (or the try loses a race), `acquire()` (blocking or timed) runs
// inside an accounted wait. Both return pthread error codes; EOWNERDEAD (robust mutexes)
// still grants the lock. Rare paths are tail calls, so the common one saves few registers.
template <EntryKind kind, ThreadState waiting, typename Taken, typename Try, typename Acquire>
QUARTZ_ALWAYS_INLINE int acquire_object(const volatile void* object, uintptr_t site, Taken taken,
                                        Try try_acquire, Acquire acquire) {
  ThreadBlock* block = t_local.block;
  if (QUARTZ_UNLIKELY(block == nullptr)) {
    block = current_block_slow();
    if (block == nullptr) return acquire_unregistered(acquire);
  }
  const auto address = reinterpret_cast<uintptr_t>(object);
  if (QUARTZ_UNLIKELY(taken(*block))) {
    return wait_for_object<kind, waiting>(block, address, site, acquire);
  }
  const int rc = try_acquire();
  if (QUARTZ_UNLIKELY(rc != 0 && rc != EOWNERDEAD)) {
    return wait_for_object<kind, waiting>(block, address, site, acquire);
  }
  on_acquired(*block, runtime().objects, address, kind, site);
  if (QUARTZ_UNLIKELY(block->trace != nullptr))
    trace_lock_acquired(*block, address, kind, 0, false);
  return rc;
}

// A recursive mutex taken again by its owner (glibc counts the depth in __count).
QUARTZ_ALWAYS_INLINE bool relocked_mutex(const volatile void* object) {
  return static_cast<const volatile pthread_mutex_t*>(object)->__data.__count > 1;
}

// A non-blocking attempt (the program's own trylock): counted only when it succeeds.
template <EntryKind kind, typename Try>
QUARTZ_ALWAYS_INLINE int try_object(const volatile void* object, uintptr_t site, Try try_acquire) {
  const int rc = try_acquire();
  if (rc != 0 && rc != EOWNERDEAD) return rc;
  if (ThreadBlock* block = current_block()) {
    const auto address = reinterpret_cast<uintptr_t>(object);
    on_acquired(*block, runtime().objects, address, kind, site);
    if constexpr (kind == EntryKind::mutex) {
      if (relocked_mutex(object)) return rc;
    }
    if (QUARTZ_UNLIKELY(block->trace != nullptr))
      trace_lock_acquired(*block, address, kind, 0, false);
  }
  return rc;
}

// Releases a lock-like object: it leaves the stack just before the real release. The
// other order (release, then pop) lets a thread preempted between the two look like a
// second holder while the next owner runs (a lock can then look held longer than the run).
// Popping first can only make a preempted releaser look released a moment early. A release
// by a thread that does not hold the object finds nothing to pop.
// `traced_kind(block)` says how the release is traced (EntryKind::procedure: not at all).
template <typename TracedKind, typename Release>
QUARTZ_ALWAYS_INLINE int release_object(const volatile void* object, TracedKind traced_kind,
                                        Release release) {
  ThreadBlock* block = t_local.block;  // a thread never seen before holds nothing of ours
  if (QUARTZ_LIKELY(block != nullptr)) {
    const auto address = reinterpret_cast<uintptr_t>(object);
    if (QUARTZ_UNLIKELY(block->trace != nullptr)) {
      const EntryKind kind = traced_kind(*block);
      if (kind != EntryKind::procedure) trace_lock_released(*block, address, kind);
    }
    on_released(*block, address);
  }
  return release();
}

// Counts a signal, broadcast or post on `object`; returns its record (null when full).
QUARTZ_NOINSTR ObjectRecord* count_post(const void* object, EntryKind kind, uintptr_t site);

}  // namespace quartz::rt
