// The composition root of libquartz.so: the one place that knows every piece (the runtime,
// the compiler hooks, the sampler) and runs the library's start-up, exit, fork and exec
// handling. The pieces do not run each other: the runtime counts and never starts or stops
// the sampler; the sampler reads the runtime; this file starts, stops and forks them.
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <new>

#include "compiler_hooks/patched_entries.h"
#include "overhead/entry_overhead_control.h"
#include "runtime/runtime.h"
#include "sampler/measure/sampler.h"
#include "support/attributes.h"
#include "support/safe_file.h"

namespace {
using namespace quartz;

// Programs this one execs inherit LD_PRELOAD; unless asked, take ourselves out of it so
// only the program the user launched is profiled (STYLE 13).
QUARTZ_NOINSTR void stop_following_exec() {
  const char* preload = getenv("LD_PRELOAD");
  if (!preload || !strstr(preload, "libquartz")) return;
  char kept[4096];
  size_t n = 0;
  const char* p = preload;
  while (*p) {
    while (*p == ' ' || *p == ':') ++p;
    const char* start = p;
    while (*p && *p != ' ' && *p != ':') ++p;
    const size_t len = static_cast<size_t>(p - start);
    if (len == 0) continue;
    bool ours = false;
    for (size_t i = 0; i + 9 <= len; ++i) {
      if (strncmp(start + i, "libquartz", 9) == 0) ours = true;
    }
    if (ours || n + len + 2 > sizeof(kept)) continue;
    if (n) kept[n++] = ':';
    memcpy(kept + n, start, len);
    n += len;
  }
  kept[n] = '\0';
  if (n) {
    setenv("LD_PRELOAD", kept, 1);
  } else {
    unsetenv("LD_PRELOAD");
  }
}

// With --follow-exec every program of the tree writes a capture of its own: the one
// `quartz run` started writes QUARTZ_OUTPUT; each program a profiled one started (fork and
// exec, or exec in place) writes "<QUARTZ_OUTPUT>.exec-<pid>" ("-2", "-3"... for a chain of
// execs in one process) and names its parent's capture in its own; its children learn its
// capture from QUARTZ_PARENT_CAPTURE. `quartz run` stores each as a run, linked to its
// parent's.
QUARTZ_NOINSTR void name_followed_capture(rt::Options& options) {
  const int saved_errno = errno;
  if (options.parent_capture[0]) {
    char name[rt::kMaxPathBytes];
    bool found = false;
    for (int k = 1; k < 1000 && !found; ++k) {
      const int n = k == 1
                        ? snprintf(name, sizeof name, "%s.exec-%d", options.output, getpid())
                        : snprintf(name, sizeof name, "%s.exec-%d-%d", options.output, getpid(), k);
      if (n <= 0 || static_cast<size_t>(n) >= sizeof name) break;
      found = access(name, F_OK) != 0;
    }
    if (found) memcpy(options.output, name, strlen(name) + 1);
  }
  setenv("QUARTZ_PARENT_CAPTURE", options.output, 1);
  errno = saved_errno;
}

// The last snapshot and the final capture (in a forked child: its counts).
QUARTZ_NOINSTR void stop_sampling() {
  sampler::stop();
}

// Registered at start-up, so it runs after the program's own atexit handlers and destructors.
QUARTZ_NOINSTR void finish_run() {
  rt::finish(stop_sampling);
}

// The ends a program takes without its exit handlers (_exit, _Exit, quick_exit, abort and
// so std::terminate) finish the run as exit does: the capture then covers the program to
// its end, not to the sampler's last publication, a period or more before it on a busy
// machine (issue 10 item 2). They wait for the final capture at most this long: one called
// from a signal handler may have interrupted a thread holding what the sampler needs, and
// the program must end all the same.
constexpr uint64_t kAbruptEndWaitNs = 1'000'000'000;

// The process whose sampler runs: not a forked child (only exit writes its counts) nor a
// vfork child (it shares our memory and must leave the sampler alone).
pid_t g_sampled_pid = 0;

QUARTZ_NOINSTR void stop_sampling_soon() {
  sampler::stop(kAbruptEndWaitNs);
}

QUARTZ_NOINSTR void finish_run_abruptly() {
  // In the runtime's own code on this thread (a signal handler interrupted it): what the
  // run would record now could be half-written; what the sampler last published stands.
  if (g_sampled_pid == 0 || getpid() != g_sampled_pid || rt::t_local.in_runtime) return;
  rt::finish(stop_sampling_soon);
}

// Overhead control of the patched entries: the one part of the process that switches
// them, made here and given to the sampler; never destroyed (the sampler may outlive exit).
alignas(sampler::EntryOverheadControl) unsigned char g_overhead_storage[sizeof(
    sampler::EntryOverheadControl)];

using AbortFunction = void (*)();
AbortFunction g_real_abort = nullptr;  // resolved at start-up: abort may come from a crash

QUARTZ_NOINSTR void on_fork_in_child() {
  rt::after_fork_in_child();
  const int saved_errno = errno;
  // The sampler thread stayed in the parent: the child is not sampled, and at exit it
  // writes its counts to a capture of its own, "<capture>.<pid>".
  sampler::forget_after_fork();
  g_sampled_pid = 0;
  char* path = rt::runtime().options.output;
  if (path[0]) {
    const size_t used = strlen(path);
    snprintf(path + used, rt::kMaxPathBytes - used, ".%d", getpid());
  }
  errno = saved_errno;
}

// Runs before the program's own constructors (preloaded libraries initialise first). The
// runtime may have initialised already, on an instrumented call of an earlier constructor.
__attribute__((constructor(101), no_instrument_function)) void start_libquartz() {
  if (!rt::ensure_initialized()) return;
  rt::Runtime& runtime = rt::runtime();
  if (!runtime.options.follow_exec) stop_following_exec();
  if (runtime.options.follow_exec && runtime.options.output[0]) {
    name_followed_capture(runtime.options);
  }
  pthread_atfork(rt::before_fork, rt::after_fork_in_parent, on_fork_in_child);
  rt::offer_itt_collector();
  const hooks::SledCounts entries = hooks::start_patched_entries(runtime.options.procedures);
  runtime.patched_entries = entries.patched;
  runtime.refused_entries = entries.refused;
  rt::current_block();  // the main thread gets index 0 and a block before anything else
  g_real_abort = reinterpret_cast<AbortFunction>(dlsym(RTLD_NEXT, "abort"));
  if (runtime.options.output[0]) {
    auto* overhead = new (g_overhead_storage) sampler::EntryOverheadControl(runtime);
    if (sampler::start(runtime, *overhead)) {
      g_sampled_pid = getpid();
    } else {
      support::write_message("quartz: cannot start the sampler; no profile will be written\n");
    }
  }
  atexit(finish_run);
  at_quick_exit(finish_run_abruptly);
}

}  // namespace

// The program's direct ends (above). _exit is the exit_group system call, as in glibc.
QUARTZ_EXPORT void _exit(int status) {
  finish_run_abruptly();
  for (;;) syscall(SYS_exit_group, status);
}

QUARTZ_EXPORT void _Exit(int status) noexcept {
  _exit(status);
}

QUARTZ_EXPORT void abort() noexcept {
  finish_run_abruptly();
  if (g_real_abort) g_real_abort();
  // Not resolved (an abort before our start-up): end as abort would.
  signal(SIGABRT, SIG_DFL);
  raise(SIGABRT);
  for (;;) syscall(SYS_exit_group, 127);
}
