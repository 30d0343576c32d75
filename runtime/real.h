// The real pthread and semaphore functions behind our wrappers (STYLE: Coz's real.h).
//
// Every pointer is constant-initialised, so a wrapper may run before any constructor. The
// mutex functions start at glibc's internal aliases, which are never interposed: an
// allocator that locks while dlsym allocates for us still finds a working mutex. All
// pointers are resolved eagerly by resolve_real_functions() at start-up; the others are
// null until then, and each wrapper checks.
#pragma once

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>

#include "support/attributes.h"

// glibc's internal names for the mutex functions, which nothing interposes. They exist
// only as compatibility symbols, so they are bound by explicit version (x86-64's base).
#if defined(__x86_64__)
extern "C" int quartz_glibc_mutex_lock(pthread_mutex_t*) noexcept;
extern "C" int quartz_glibc_mutex_trylock(pthread_mutex_t*) noexcept;
extern "C" int quartz_glibc_mutex_unlock(pthread_mutex_t*) noexcept;
__asm__(".symver quartz_glibc_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver quartz_glibc_mutex_trylock, __pthread_mutex_trylock@GLIBC_2.2.5");
__asm__(".symver quartz_glibc_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");
#define QUARTZ_BOOTSTRAP(function) quartz_glibc_##function
#else
#define QUARTZ_BOOTSTRAP(function) nullptr
#endif

// X(name, version, bootstrap): every function we interpose; `version` pins the symbol
// version where glibc keeps an older one with a different ABI (the pre-2.3.2 condition
// variables); `bootstrap` is the pointer's value before resolution.
#define QUARTZ_REAL_FUNCTIONS(X)                                     \
  X(pthread_create, nullptr, nullptr)                                \
  X(pthread_join, nullptr, nullptr)                                  \
  X(pthread_tryjoin_np, nullptr, nullptr)                            \
  X(pthread_timedjoin_np, nullptr, nullptr)                          \
  X(pthread_exit, nullptr, nullptr)                                  \
  X(pthread_setname_np, nullptr, nullptr)                            \
  X(pthread_mutex_lock, nullptr, QUARTZ_BOOTSTRAP(mutex_lock))       \
  X(pthread_mutex_trylock, nullptr, QUARTZ_BOOTSTRAP(mutex_trylock)) \
  X(pthread_mutex_timedlock, nullptr, nullptr)                       \
  X(pthread_mutex_clocklock, nullptr, nullptr)                       \
  X(pthread_mutex_unlock, nullptr, QUARTZ_BOOTSTRAP(mutex_unlock))   \
  X(pthread_rwlock_rdlock, nullptr, nullptr)                         \
  X(pthread_rwlock_tryrdlock, nullptr, nullptr)                      \
  X(pthread_rwlock_timedrdlock, nullptr, nullptr)                    \
  X(pthread_rwlock_clockrdlock, nullptr, nullptr)                    \
  X(pthread_rwlock_wrlock, nullptr, nullptr)                         \
  X(pthread_rwlock_trywrlock, nullptr, nullptr)                      \
  X(pthread_rwlock_timedwrlock, nullptr, nullptr)                    \
  X(pthread_rwlock_clockwrlock, nullptr, nullptr)                    \
  X(pthread_rwlock_unlock, nullptr, nullptr)                         \
  X(pthread_spin_lock, nullptr, nullptr)                             \
  X(pthread_spin_trylock, nullptr, nullptr)                          \
  X(pthread_spin_unlock, nullptr, nullptr)                           \
  X(pthread_cond_wait, "GLIBC_2.3.2", nullptr)                       \
  X(pthread_cond_timedwait, "GLIBC_2.3.2", nullptr)                  \
  X(pthread_cond_clockwait, nullptr, nullptr)                        \
  X(pthread_cond_signal, "GLIBC_2.3.2", nullptr)                     \
  X(pthread_cond_broadcast, "GLIBC_2.3.2", nullptr)                  \
  X(pthread_barrier_init, nullptr, nullptr)                          \
  X(pthread_barrier_wait, nullptr, nullptr)                          \
  X(sem_init, nullptr, nullptr)                                      \
  X(sem_wait, nullptr, nullptr)                                      \
  X(sem_trywait, nullptr, nullptr)                                   \
  X(sem_timedwait, nullptr, nullptr)                                 \
  X(sem_clockwait, nullptr, nullptr)                                 \
  X(sem_post, nullptr, nullptr)                                      \
  X(pthread_kill, nullptr, nullptr)                                  \
  X(sigwait, nullptr, nullptr)                                       \
  X(sigwaitinfo, nullptr, nullptr)                                   \
  X(sigtimedwait, nullptr, nullptr)                                  \
  X(sigsuspend, nullptr, nullptr)                                    \
  X(kill, nullptr, nullptr)

namespace quartz::rt::real {

#define QUARTZ_DECLARE_REAL(name, version, bootstrap) extern decltype(::name)* name;
QUARTZ_REAL_FUNCTIONS(QUARTZ_DECLARE_REAL)
#undef QUARTZ_DECLARE_REAL

// Resolves every pointer with dlsym(RTLD_NEXT). Returns false if one is missing that the
// runtime cannot do without (then the runtime stays disabled and wrappers pass through).
QUARTZ_NOINSTR bool resolve_real_functions();
// Resolves libgomp's functions (interpose_openmp.cpp) that are still unresolved: at
// start-up, and again at a wrapper's first call when libgomp was loaded later.
QUARTZ_NOINSTR void resolve_openmp_functions();

}  // namespace quartz::rt::real
