// Wrappers for signals one thread of the program sends and another waits for (pthread_kill
// and kill of its own process; sigwait and friends, sigsuspend), traced only: a thread that
// waits in sigwait until another's pthread_kill (pbzip2's signal thread), or in sigsuspend
// until another's kill (lbzip2's main thread), is blocked on that other thread, and a
// replay that does not know it keeps the whole wait as recorded (trace_format.h
// kThreadSignals). The profile sees such a wait as time blocked in the kernel.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <utility>

#include "runtime/interpose.h"

using namespace quartz::rt;
namespace support = quartz::support;

namespace {
// Whether no signal the wait can take is pending for the thread now: `set`'s, or with
// `outside`, those not in it (sigsuspend's mask). A wait then blocks.
QUARTZ_NOINSTR bool none_pending(const sigset_t* set, bool outside) {
  sigset_t pending;
  if (!set || sigpending(&pending) != 0) return true;
  for (int signal = 1; signal < NSIG; ++signal) {
    if (sigismember(&pending, signal) == 1 && (sigismember(set, signal) == 1) != outside) {
      return false;
    }
  }
  return true;
}

// Traces a signal wait around `wait()`, which returns its result and whether it took a
// signal. errno is the real call's.
template <typename WaitFn>
QUARTZ_ALWAYS_INLINE int signal_wait(const sigset_t* set, bool outside, WaitFn wait) {
  ThreadBlock* block = current_block();
  if (!block || !block->trace) return wait().first;
  const int saved_errno = errno;
  const bool blocks = none_pending(set, outside);
  const SignalsSent before = signals_sent(*block);
  const uint64_t requested = support::ticks();
  errno = saved_errno;
  const auto [rc, took] = wait();
  const int wait_errno = errno;
  if (took) trace_signal_taken(*block, before, requested, blocks);
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
  return signal_wait(set, false, [set, signal] {
    const int rc = real::sigwait(set, signal);
    return std::pair{rc, rc == 0};
  });
}

QUARTZ_EXPORT int sigwaitinfo(const sigset_t* set, siginfo_t* info) {
  if (!have_real<real::sigwaitinfo>()) {
    errno = ENOSYS;
    return -1;
  }
  return signal_wait(set, false, [set, info] {
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
  return signal_wait(set, false, [set, info, timeout] {
    const int rc = real::sigtimedwait(set, info, timeout);
    return std::pair{rc, rc > 0};
  });
}

QUARTZ_EXPORT int kill(pid_t pid, int signal) {
  if (!have_real<real::kill>()) {
    errno = ENOSYS;
    return -1;
  }
  ThreadBlock* block = t_local.block;
  if (signal != 0 && block && block->trace && pid == getpid()) {
    const int saved_errno = errno;
    trace_process_signal(*block);
    errno = saved_errno;
  }
  return real::kill(pid, signal);
}

QUARTZ_EXPORT int sigsuspend(const sigset_t* mask) {
  if (!have_real<real::sigsuspend>()) {
    errno = ENOSYS;
    return -1;
  }
  // It returns once a handler has run: -1, EINTR.
  return signal_wait(mask, true, [mask] {
    const int rc = real::sigsuspend(mask);
    return std::pair{rc, rc == -1 && errno == EINTR};
  });
}
