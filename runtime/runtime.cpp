#include "runtime/runtime.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "runtime/merged_counts.h"
#include "runtime/placement.h"
#include "runtime/real.h"
#include "runtime/return_stack.h"
#include "runtime/trace_events.h"
#include "support/thread_cpu.h"

namespace quartz::rt {

constinit Runtime g_runtime;

namespace {
pthread_key_t g_exit_key;  // its destructor tells us a thread ended, however it ended

// Saves errno on entry and restores it on exit (STYLE 7): the runtime's own system calls
// must never show through to the program.
class ErrnoGuard {
 public:
  QUARTZ_NOINSTR ErrnoGuard() : saved_(errno) {}
  QUARTZ_NOINSTR ~ErrnoGuard() { errno = saved_; }

 private:
  int saved_;
};

QUARTZ_NOINSTR bool is_main_thread() {
  return gettid() == getpid();
}

QUARTZ_NOINSTR void record_thread_start(ThreadBlock& block, uint32_t parent_index,
                                        uintptr_t start_routine) {
  ThreadRecord* record = g_runtime.history.at(block.index);
  if (!record) return;
  record->parent_index.store(parent_index, std::memory_order_relaxed);
  record->tid.store(block.tid.load(std::memory_order_relaxed), std::memory_order_relaxed);
  record->start_routine.store(start_routine, std::memory_order_relaxed);
  record->handle.store(static_cast<uint64_t>(pthread_self()), std::memory_order_relaxed);
  record->exit_kind.store(0, std::memory_order_relaxed);
  record->exited_ns.store(0, std::memory_order_relaxed);
  if (record->created_ns.load(std::memory_order_relaxed) == 0 ||
      record->phase.load(std::memory_order_relaxed) == ThreadPhase::unused) {
    record->created_ns.store(now_ns(), std::memory_order_relaxed);
  }
  char name[kThreadNameBytes] = {};
  prctl(PR_GET_NAME, name, 0, 0, 0);  // new threads start with their creator's name
  ThreadHistory::set_name(*record, name);
  record->named.store(0, std::memory_order_relaxed);
  record->routine_count.store(0, std::memory_order_relaxed);
  block.record = record;
  block.own_base = block.stack.depth();
  record->phase.store(ThreadPhase::running, std::memory_order_release);
  place_thread(0, block.index, name);
}

// Installs `slot` as the calling thread's block and makes it visible to readers.
QUARTZ_NOINSTR void adopt(ThreadSlot* slot) {
  ThreadBlock* block = slot->block.load(std::memory_order_relaxed);
  block->tid.store(gettid(), std::memory_order_relaxed);
  block->self = pthread_self();
  // The destructor runs on every way out of a thread: return, pthread_exit, cancellation.
  pthread_setspecific(g_exit_key, slot);
  t_local.slot = slot;
  t_local.block = block;
  g_runtime.threads.publish(slot);
}

// A name the thread gave itself behind our back (prctl(PR_SET_NAME), or a write to
// /proc/self/task/TID/comm): one system call, at its end.
QUARTZ_NOINSTR void note_kernel_name(ThreadRecord& record) {
  char now[kThreadNameBytes] = {}, recorded[kThreadNameBytes];
  if (record.named.load(std::memory_order_relaxed) == kNamedByAnnotation ||
      prctl(PR_GET_NAME, now, 0, 0, 0) != 0) {
    return;
  }
  ThreadHistory::copy_name(record, recorded);
  if (std::strncmp(now, recorded, kThreadNameBytes) != 0)
    ThreadHistory::set_given_name(record, now);
}

QUARTZ_NOINSTR ThreadBlock* register_current_thread() {
  ThreadSlot* slot = g_runtime.threads.claim();
  if (!slot) {
    t_local.ignored = 1;  // out of memory: leave this thread alone rather than retry
    return nullptr;
  }
  ThreadBlock* block = slot->block.load(std::memory_order_relaxed);
  // A thread we did not see created: the main thread, or one created before we loaded.
  block->index = is_main_thread() ? 0 : g_runtime.history.next_index();
  block->parent_index = kNoThread;
  block->tid.store(gettid(), std::memory_order_relaxed);
  block->start_cpu_ns = support::read_own_clock();  // what it used before is not the run's
  record_thread_start(*block, kNoThread, 0);
  if (block->trace) {
    record_event(*block, trace::Type::thread_start, EntryKind::procedure, trace::kNoThread, 0, 0,
                 support::ticks());
  }
  adopt(slot);
  return block;
}

constexpr uint64_t kExitRunqueueMinLifeNs = 1'100'000;

QUARTZ_NOINSTR void on_thread_exit(void* value) {
  auto* slot = static_cast<ThreadSlot*>(value);
  if (!slot || t_local.slot != slot) return;
  ErrnoGuard errno_guard;
  ThreadBlock* block = slot->block.load(std::memory_order_relaxed);
  if (block->trace)
    record_event(*block, trace::Type::thread_exit, EntryKind::procedure, 0, 0, 0, support::ticks());
  record_end_cpu(*block);  // ended through pthread_exit or cancellation: not read yet
  ThreadRecord* record = g_runtime.history.at(block->index);
  if (record) note_kernel_name(*record);
  if (g_runtime.exit_cpu_wanted.load(std::memory_order_acquire)) {
    // The run-queue time, from schedstat (an open, a read and a close: ~11 us), only for a
    // thread that lived long enough for that to be at most 1% of its life.
    const uint64_t created = record ? record->created_ns.load(std::memory_order_relaxed) : 0;
    support::ThreadCpu cpu;
    const bool long_lived = created && now_ns() - created >= kExitRunqueueMinLifeNs;
    block->exit_runqueue_ns.store(long_lived && support::read_thread_cpu(gettid(), &cpu)
                                      ? cpu.runqueue_ns
                                      : kExitRunqueueUnknown,
                                  std::memory_order_relaxed);
  }
  if (record) {
    // After the read above, which a loaded machine can stretch to milliseconds: the sampler
    // counts the thread alive until this says otherwise.
    record->exited_ns.store(now_ns(), std::memory_order_relaxed);
    uint32_t running = 0;  // pthread_exit may have said how it ended already
    record->exit_kind.compare_exchange_strong(running, 1, std::memory_order_relaxed);
  }
  // From here on this thread's events are ignored: other destructors may still run
  // instrumented code, and the block may soon belong to another thread.
  t_local.block = nullptr;
  t_local.slot = nullptr;
  t_local.ignored = 1;
  g_runtime.threads.finish(slot);
}

// Threads inside libunwind, and whether a fork is under way (no walk starts then).
// libunwind's locks are not reset in a forked child: a thread walking at the fork leaves
// them held there, and the child's first walk would wait forever.
std::atomic<uint32_t> g_walkers{0};
std::atomic<bool> g_forking{false};

// The object registry's stack walker. libunwind takes locks of its own, whose
// pthread_mutex_lock comes back to our wrappers: the thread is hidden from the runtime
// while it walks, so that they are neither counted nor walked in turn. While a fork is
// under way it does not walk (the object keeps only its call site).
QUARTZ_NOINSTR uint32_t walk_stack(uintptr_t* out, uint32_t capacity) {
  if (g_forking.load(std::memory_order_acquire)) return 0;
  g_walkers.fetch_add(1, std::memory_order_acq_rel);
  if (g_forking.load(std::memory_order_acquire)) {
    g_walkers.fetch_sub(1, std::memory_order_release);
    return 0;
  }
  ThreadBlock* const block = t_local.block;
  const uint8_t in_runtime = t_local.in_runtime;
  t_local.block = nullptr;
  t_local.in_runtime = 1;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  restore_return_addresses();  // libunwind steps by return addresses (return_stack.h)
  const int n = unw_backtrace(reinterpret_cast<void**>(out), static_cast<int>(capacity));
  reinstate_return_addresses();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  t_local.block = block;
  t_local.in_runtime = in_runtime;
  g_walkers.fetch_sub(1, std::memory_order_release);
  return n > 0 ? static_cast<uint32_t>(n) : 0;
}

QUARTZ_NOINSTR void initialize() {
  Runtime& rt = g_runtime;
  read_options(rt.options);
  // Resolve even when disabled: the wrappers always need the real functions.
  const bool resolved = real::resolve_real_functions();
  if (rt.options.disabled || !resolved ||
      !rt.objects.configure(rt.options.objects_log2, walk_stack) ||
      !rt.call_graph.configure(rt.options.call_graph_log2) ||
      pthread_key_create(&g_exit_key, on_thread_exit) != 0) {
    rt.lifecycle.store(Lifecycle::disabled, std::memory_order_release);
    return;
  }
  rt.threads.configure(rt.options.geometry, fold_block);
  if (rt.options.placement[0]) configure_placement(rt.options.placement);
  // The run starts once the runtime is ready: mapping its tables takes tens of
  // milliseconds on a loaded machine, and is not the program's time.
  rt.clock.start();
  rt.lifecycle.store(Lifecycle::running, std::memory_order_release);
}

}  // namespace

void before_fork() {
  g_forking.store(true, std::memory_order_seq_cst);
  // A walk takes microseconds; a fork from a signal handler that interrupted one in this
  // very thread would wait for itself: give up after two seconds rather than hang.
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  while (g_walkers.load(std::memory_order_acquire) != 0) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= 2) break;
    sched_yield();
  }
}

void after_fork_in_parent() {
  g_forking.store(false, std::memory_order_release);
}

__thread ThreadLocal t_local __attribute__((tls_model("initial-exec")));

uint64_t now_ns() {
  return support::monotonic_ns();
}

namespace {

// Sets the recursion guard and keeps errno for the duration of a runtime slow path.
class RuntimeScope {
 public:
  QUARTZ_NOINSTR RuntimeScope() { t_local.in_runtime = 1; }
  QUARTZ_NOINSTR ~RuntimeScope() { t_local.in_runtime = 0; }

 private:
  ErrnoGuard errno_guard_;
};

// Initialises once; the caller holds the recursion guard, so that anything reached from
// here (dlsym, the program's allocator, even out-of-line library code the program
// overrides with an instrumented copy) finds the runtime busy instead of recursing.
QUARTZ_NOINSTR bool initialize_once() {
  Lifecycle state = g_runtime.lifecycle.load(std::memory_order_acquire);
  if (state == Lifecycle::uninitialised &&
      g_runtime.lifecycle.compare_exchange_strong(state, Lifecycle::initialising,
                                                  std::memory_order_acq_rel)) {
    initialize();
  } else {
    while (g_runtime.lifecycle.load(std::memory_order_acquire) == Lifecycle::initialising) {
      sched_yield();  // another thread is initialising
    }
  }
  return g_runtime.lifecycle.load(std::memory_order_acquire) != Lifecycle::disabled;
}

}  // namespace

bool ensure_initialized() {
  const Lifecycle state = g_runtime.lifecycle.load(std::memory_order_acquire);
  if (QUARTZ_LIKELY(state >= Lifecycle::running)) return state != Lifecycle::disabled;
  if (t_local.in_runtime) return false;  // re-entered from our own initialisation
  RuntimeScope scope;
  return initialize_once();
}

ThreadBlock* current_block_slow() {
  if (t_local.in_runtime || t_local.ignored) return nullptr;
  RuntimeScope scope;
  if (!initialize_once()) return nullptr;
  if (t_local.block) return t_local.block;  // initialisation registered us
  return register_current_thread();
}

void record_end_cpu(ThreadBlock& block) {
  if (!g_runtime.exit_cpu_wanted.load(std::memory_order_acquire) ||
      block.exit_cpu_ns.load(std::memory_order_relaxed) != 0) {
    return;
  }
  ErrnoGuard errno_guard;
  block.exit_cpu_ns.store(support::read_own_clock(), std::memory_order_relaxed);
}

void restart_run_clock() {
  g_runtime.clock.start();
  ThreadBlock* block = t_local.block;
  if (!block) return;
  block->start_cpu_ns = support::read_own_clock();
}

void mark_runtime_thread() {
  t_local.block = nullptr;
  t_local.slot = nullptr;
  t_local.ignored = 1;
}

void finish(void (*stop_readers)()) {
  Lifecycle expected = Lifecycle::running;
  if (!g_runtime.lifecycle.compare_exchange_strong(expected, Lifecycle::finishing,
                                                   std::memory_order_acq_rel)) {
    return;
  }
  ErrnoGuard errno_guard;
  const uint8_t was_in_runtime = t_local.in_runtime;
  t_local.in_runtime = 1;
  g_runtime.end_ns.store(now_ns(), std::memory_order_relaxed);
  if (ThreadBlock* block = t_local.block) {
    // The run ends here for this thread too: what it runs after (exit handlers, the wait
    // for the sampler's last capture) is not the program's, and would make its processor
    // time exceed its life in a short run.
    record_end_cpu(*block);
    if (block->record) note_kernel_name(*block->record);
    if (block->trace) {
      record_event(*block, trace::Type::process_end, EntryKind::procedure, 0, 0, 0,
                   support::ticks());
    }
  }
  stop_readers();
  t_local.in_runtime = was_in_runtime;
  g_runtime.lifecycle.store(Lifecycle::finished, std::memory_order_release);
}

void after_fork_in_child() {
  ErrnoGuard errno_guard;
  g_walkers.store(0, std::memory_order_relaxed);  // the walkers stayed in the parent
  g_forking.store(false, std::memory_order_release);
  Runtime& rt = g_runtime;
  rt.threads.reset_after_fork(t_local.slot);
  rt.objects.reset_counters();
  rt.call_graph.reset_counters();
  rt.history.reset_after_fork();
  if (ThreadBlock* block = t_local.block) {
    block->edges.clear();
    block->objects.clear();
    // The stack stays: the child is still inside those procedures, and its work is done
    // on their behalf.
    block->blocked_ticks.store(0, std::memory_order_relaxed);
    block->spinning_ticks.store(0, std::memory_order_relaxed);
    block->spilled_events.store(0, std::memory_order_relaxed);
    block->index = 0;
    block->parent_index = kNoThread;
    block->tid.store(gettid(), std::memory_order_relaxed);
    block->self = pthread_self();
    record_thread_start(*block, kNoThread, 0);
  }
  // Readers (the sampler thread) stayed in the parent.
  rt.exit_cpu_wanted.store(false, std::memory_order_relaxed);
  rt.end_ns.store(0, std::memory_order_relaxed);
}

void fold_block(ThreadBlock& block) {
  Runtime& rt = g_runtime;
  block.edges.for_each_claimed([&](const CallEdgeSlot& s) {
    const uint64_t n = s.calls.load(std::memory_order_relaxed);
    if (n == 0) return;
    rt.call_graph.add(s.caller.load(std::memory_order_relaxed),
                      s.callee.load(std::memory_order_relaxed), n);
  });
  block.objects.for_each_claimed([&](const ObjectCountSlot& s) {
    const uint64_t acquisitions = s.acquisitions.load(std::memory_order_relaxed);
    const uint64_t contended = s.contended.load(std::memory_order_relaxed);
    if (acquisitions == 0 && contended == 0) return;
    ObjectRecord* r = rt.objects.find(s.address.load(std::memory_order_relaxed));
    if (!r) return;
    r->acquisitions.fetch_add(acquisitions, std::memory_order_relaxed);
    r->contended.fetch_add(contended, std::memory_order_relaxed);
    r->wait_ticks.fetch_add(s.wait_ticks.load(std::memory_order_relaxed),
                            std::memory_order_relaxed);
  });
  if (ThreadRecord* record = rt.history.at(block.index)) {
    const ThreadTotals totals = block_totals(block);
    record->calls.store(totals.calls, std::memory_order_relaxed);
    record->overflows.store(totals.overflows, std::memory_order_relaxed);
    record->mismatches.store(totals.mismatches, std::memory_order_relaxed);
    record->blocked_ticks.store(totals.blocked_ticks, std::memory_order_relaxed);
    record->spinning_ticks.store(totals.spinning_ticks, std::memory_order_relaxed);
    record->phase.store(ThreadPhase::exited, std::memory_order_release);
  }
}

ThreadSlot* prepare_child(ThreadBlock* creator) {
  Runtime& rt = g_runtime;
  ThreadSlot* slot = rt.threads.claim();
  if (!slot) return nullptr;
  ThreadBlock* child = slot->block.load(std::memory_order_relaxed);
  child->index = rt.history.next_index();
  child->parent_index = creator ? creator->index : kNoThread;
  child->clocks_from_birth = true;
  if (creator) child->stack.inherit(creator->stack);
  if (ThreadRecord* record = rt.history.at(child->index)) {
    record->phase.store(ThreadPhase::created, std::memory_order_relaxed);
    record->created_ns.store(now_ns(), std::memory_order_relaxed);
  }
  return slot;
}

void start_child(ThreadSlot* slot) {
  ThreadBlock* block = slot->block.load(std::memory_order_relaxed);
  block->tid.store(gettid(), std::memory_order_relaxed);
  record_thread_start(*block, block->parent_index,
                      reinterpret_cast<uintptr_t>(block->start_routine));
  if (block->trace) {
    record_event(*block, trace::Type::thread_start, EntryKind::procedure, block->parent_index, 0, 0,
                 support::ticks());
  }
  adopt(slot);
  // Patched entries take return addresses only on the thread's own stack.
  if (g_return_trampoline.load(std::memory_order_relaxed) != 0) t_returns.learn_stack_bounds();
}

}  // namespace quartz::rt
