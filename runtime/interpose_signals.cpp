// Wrappers for signals one thread sends another and waits for (pthread_kill, sigwait and
// friends), traced only: a thread that waits in sigwait until another's pthread_kill (a
// program's signal thread, as pbzip2's) is blocked on that other thread, and a replay that
// does not know it keeps the whole wait as recorded (trace_format.h kThreadSignals). The
// profile sees such a wait as time blocked in the kernel, as before.
#include <pthread.h>
#include <signal.h>

#include <utility>

#include "runtime/interpose.h"

using namespace quartz::rt;

namespace {
// Whether none of `set`'s signals is pending for the thread now: a wait for them blocks.
QUARTZ_NOINSTR bool none_pending(const sigset_t* set) {
  sigset_t pending;
  if (!set || sigpending(&pending) != 0) return true;
  sigset_t both;
  if (sigandset(&both, &pending, set) != 0) return true;
  return sigisemptyset(&both);
}

// Traces a signal wait around `wait()`, which returns whether it took a signal. errno is
// the real call's.
template <typename WaitFn>
QUARTZ_ALWAYS_INLINE int signal_wait(const sigset_t* set, WaitFn wait) {
  ThreadBlock* block = current_block();
  if (!block || !block->trace) return wait().first;
  const int saved_errno = errno;
  const bool blocks = none_pending(set);
  const uint64_t requested = ticks();
  errno = saved_errno;
  const auto [rc, took] = wait();
  const int wait_errno = errno;
  if (took) trace_signal_taken(*block, requested, blocks);
  errno = wait_errno;
  return rc;
}
}  // namespace

QUARTZ_EXPORT int pthread_kill(pthread_t thread, int signal) {
  if (!have_real<real::pthread_kill>()) return ENOSYS;
  ThreadBlock* block = t_local.block;
  if (signal != 0 && block && block->trace) {
    const int saved_errno = errno;
    trace_thread_signal(*block, static_cast<uint64_t>(thread));
    errno = saved_errno;
  }
  return real::pthread_kill(thread, signal);
}

QUARTZ_EXPORT int sigwait(const sigset_t* set, int* signal) {
  if (!have_real<real::sigwait>()) return ENOSYS;
  return signal_wait(set, [set, signal] {
    const int rc = real::sigwait(set, signal);
    return std::pair{rc, rc == 0};
  });
}

QUARTZ_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  if (!have_real<real::sigwaitinfo>()) {
    errno = ENOSYS;
    return -1;
  }
  return signal_wait(set, [set, info] {
    const int rc = real::sigwaitinfo(set, info);
    return std::pair{rc, rc > 0};
  });
}

QUARTZ_EXPORT int sigtimedwait(const sigset_t* set, siginfo_t* info,
                               const struct timespec* timeout) {
  if (!have_real<real::sigtimedwait>()) {
    errno = ENOSYS;
    return -1;
  }
  return signal_wait(set, [set, info, timeout] {
    const int rc = real::sigtimedwait(set, info, timeout);
    return std::pair{rc, rc > 0};
  });
}
