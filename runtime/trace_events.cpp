#include "runtime/trace_events.h"

#include <time.h>

#include <atomic>

#include "runtime/runtime.h"

namespace quartz::rt {

uint64_t g_trace_cpu_interval_ticks = 0;

void record_cpu(ThreadBlock& block, uint64_t now_ticks) {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return;
  const uint64_t cpu_ns =
      static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  block.trace_cpu_ticks = now_ticks;
  block.trace->push(
      TraceEvent{support::ticks(), cpu_ns, 0, 0, block.stack.sequence(), trace::Type::cpu, 0, 0});
}
namespace {

// A lock acquired after longer than this was waited for even if nobody held it at the
// request (a preempted request): the request is recorded so the wait is not taken for work.
constexpr uint64_t kWaitedTicks = 4000;

QUARTZ_NOINSTR ObjectRecord* record_of(uintptr_t object, EntryKind kind, uintptr_t site) {
  return runtime().objects.find_or_insert(object, kind, site);
}

// trace_lock_acquired; `ends_wait`: the acquisition that ends a condition wait, whose
// dependency is the signal that woke it (cond_wake), not a lock_fed.
QUARTZ_NOINSTR void record_lock_acquired(ThreadBlock& block, uintptr_t object, EntryKind kind,
                                         uint64_t requested_ticks, bool waited, bool ends_wait) {
  const uint64_t now = support::ticks();
  uint32_t sequence = 0;
  uint32_t aux = 0;
  if (ObjectRecord* r = runtime().objects.find(object)) {
    if (kind == EntryKind::rwlock_read) {
      // Readers share the epoch a writer opened; the next writer follows all of them.
      sequence = r->trace_sequence.load(std::memory_order_relaxed);
      r->trace_count.fetch_add(1, std::memory_order_relaxed);
    } else {
      // Held exclusively: nobody else writes these until we release.
      sequence = r->trace_sequence.load(std::memory_order_relaxed) + 1;
      r->trace_sequence.store(sequence, std::memory_order_relaxed);
      if (kind == EntryKind::rwlock_write) {
        aux = r->trace_count.exchange(0, std::memory_order_relaxed);
      }
    }
  }
  const bool request = waited || (requested_ticks != 0 && now - requested_ticks > kWaitedTicks);
  if (kind == EntryKind::mutex) {
    block.trace_previous_section = block.trace_last_section;
    block.trace_last_section = TracedSection{object, sequence};
    if (!ends_wait && object == block.trace_wait_mutex && block.trace_wait_record) {
      const uint32_t fed = block.trace_wait_record->trace_parameter.load(std::memory_order_acquire);
      push_event(block, trace::Type::lock_fed, EntryKind::condition,
                 block.trace_wait_record->address.load(std::memory_order_relaxed), fed, 0,
                 request ? requested_ticks : now);
    }
  }
  if (request) push_event(block, trace::Type::lock_request, kind, object, 0, 0, requested_ticks);
  record_event(block, trace::Type::lock_acquire, kind, object, sequence, aux, now);
}

}  // namespace

void trace_lock_acquired(ThreadBlock& block, uintptr_t object, EntryKind kind,
                         uint64_t requested_ticks, bool waited) {
  record_lock_acquired(block, object, kind, requested_ticks, waited, false);
}

void trace_lock_released(ThreadBlock& block, uintptr_t object, EntryKind kind) {
  const ObjectRecord* r = runtime().objects.find(object);
  const uint32_t sequence = r ? r->trace_sequence.load(std::memory_order_relaxed) : 0;
  const uint64_t now = support::ticks();
  // A thread that signalled after its previous critical section (a producer notifying
  // after unlocking) will again: a waiter this unlock wakes, before the signal, follows it.
  const TracedSection section{object, sequence};
  if (kind == EntryKind::mutex && sequence != 0 && section == block.trace_last_section &&
      block.trace_signal_from.mutex == object &&
      block.trace_signal_from == block.trace_previous_section) {
    block.trace_signal_record->trace_parameter.store(sequence, std::memory_order_release);
    push_event(block, trace::Type::lock_feeds, EntryKind::condition,
               block.trace_signal_record->address.load(std::memory_order_relaxed), sequence, 0,
               now);
  }
  record_event(block, trace::Type::lock_release, kind, object, sequence, 0, now);
}

void trace_condition_wait(ThreadBlock& block, uintptr_t condition, uintptr_t mutex,
                          uintptr_t site) {
  trace_lock_released(block, mutex, EntryKind::mutex);
  const ObjectRecord* r = record_of(condition, EntryKind::condition, site);
  const uint32_t signals = r ? r->trace_sequence.load(std::memory_order_acquire) : 0;
  block.trace_wait_mutex = mutex;
  block.trace_wait_record = r;
  record_event(block, trace::Type::cond_wait, EntryKind::condition, condition, signals, 0,
               support::ticks());
}

void trace_condition_woken(ThreadBlock& block, uintptr_t condition, uintptr_t mutex) {
  const ObjectRecord* r = runtime().objects.find(condition);
  const uint32_t signals = r ? r->trace_sequence.load(std::memory_order_acquire) : 0;
  const uint64_t now = support::ticks();
  record_event(block, trace::Type::cond_wake, EntryKind::condition, condition, signals, 0, now);
  record_lock_acquired(block, mutex, EntryKind::mutex, now, false, true);
}

void trace_condition_signal(ThreadBlock& block, uintptr_t condition, bool broadcast,
                            uintptr_t site) {
  ObjectRecord* r = record_of(condition, EntryKind::condition, site);
  // Numbered before the real call, so a waiter it wakes reads at least this number.
  const uint32_t sequence = r ? r->trace_sequence.fetch_add(1, std::memory_order_acq_rel) + 1 : 0;
  const TracedSection from = block.trace_last_section;
  if (r && from.acquisition != 0) {
    r->trace_parameter.store(from.acquisition, std::memory_order_release);
    block.trace_signal_record = r;
    block.trace_signal_from = from;
  }
  record_event(block, broadcast ? trace::Type::cond_broadcast : trace::Type::cond_signal,
               EntryKind::condition, condition, sequence, from.acquisition, support::ticks());
}

uint32_t trace_barrier_arrive(ThreadBlock& block, uintptr_t barrier, uintptr_t site) {
  ObjectRecord* r = record_of(barrier, EntryKind::barrier, site);
  uint32_t arrival = 0;
  uint32_t count = 0;
  if (r) {
    arrival = r->trace_sequence.fetch_add(1, std::memory_order_acq_rel);
    count = r->trace_parameter.load(std::memory_order_relaxed);
  }
  record_event(block, trace::Type::barrier_arrive, EntryKind::barrier, barrier, arrival, count,
               support::ticks());
  return arrival;
}

void trace_barrier_depart(ThreadBlock& block, uintptr_t barrier, uint32_t arrival) {
  const ObjectRecord* r = runtime().objects.find(barrier);
  const uint32_t count = r ? r->trace_parameter.load(std::memory_order_relaxed) : 0;
  record_event(block, trace::Type::barrier_depart, EntryKind::barrier, barrier,
               count ? arrival / count : 0, count, support::ticks());
}

void trace_semaphore_post(ThreadBlock& block, uintptr_t semaphore, uintptr_t site) {
  ObjectRecord* r = record_of(semaphore, EntryKind::semaphore, site);
  const uint32_t sequence = r ? r->trace_sequence.fetch_add(1, std::memory_order_acq_rel) + 1 : 0;
  record_event(block, trace::Type::sem_post, EntryKind::semaphore, semaphore, sequence, 0,
               support::ticks());
}

namespace {
// A semaphore's acquisition (its wait first, when it had to block), numbered `sequence`.
QUARTZ_NOINSTR void record_acquired(ThreadBlock& block, uint64_t semaphore, uint32_t sequence,
                                    uint32_t initial, uint64_t requested_ticks, bool waited,
                                    uint64_t now) {
  if (waited) {
    push_event(block, trace::Type::sem_wait_begin, EntryKind::semaphore, semaphore, 0, 0,
               requested_ticks);
  }
  record_event(block, trace::Type::sem_acquire, EntryKind::semaphore, semaphore, sequence, initial,
               now);
}
}  // namespace

void trace_semaphore_acquired(ThreadBlock& block, uintptr_t semaphore, uint64_t requested_ticks,
                              bool waited) {
  const uint64_t now = support::ticks();
  uint32_t sequence = 0;
  uint32_t initial = 0;
  if (ObjectRecord* r = runtime().objects.find(semaphore)) {
    sequence = r->trace_count.fetch_add(1, std::memory_order_acq_rel) + 1;
    initial = r->trace_parameter.load(std::memory_order_relaxed);
  }
  record_acquired(block, semaphore, sequence, initial, requested_ticks, waited, now);
}

void trace_thread_signal(ThreadBlock& block, uint64_t target_handle) {
  const uint32_t index = thread_index_of(target_handle);
  ThreadRecord* r = index == trace::kNoThread ? nullptr : runtime().history.at(index);
  if (!r) return;
  // Numbered before the real call, so the wait it ends reads at least this number.
  const uint32_t sequence = r->signals_sent.fetch_add(1, std::memory_order_acq_rel) + 1;
  record_event(block, trace::Type::sem_post, EntryKind::semaphore, trace::kThreadSignals | index,
               sequence, 0, support::ticks());
}

namespace {
// Signals sent to the process with kill while tracing.
std::atomic<uint32_t> g_process_signals_sent{0};
}  // namespace

SignalsSent signals_sent(const ThreadBlock& block) {
  const ThreadRecord* r = runtime().history.find(block.index);
  return {r ? r->signals_sent.load(std::memory_order_acquire) : 0,
          g_process_signals_sent.load(std::memory_order_acquire)};
}

void trace_process_signal(ThreadBlock& block) {
  const uint32_t sequence = g_process_signals_sent.fetch_add(1, std::memory_order_acq_rel) + 1;
  record_event(block, trace::Type::sem_post, EntryKind::semaphore, trace::kProcessSignals, sequence,
               0, support::ticks());
}

void trace_signal_taken(ThreadBlock& block, const SignalsSent& before, uint64_t requested_ticks,
                        bool waited) {
  const uint64_t now = support::ticks();
  const SignalsSent after = signals_sent(block);
  const bool thread = after.to_thread != before.to_thread ||
                      (after.to_process == before.to_process && after.to_thread != 0);
  record_acquired(block, thread ? trace::kThreadSignals | block.index : trace::kProcessSignals,
                  thread ? after.to_thread : after.to_process, 0, requested_ticks, waited, now);
}

void note_initialised(uintptr_t object, EntryKind kind, uint32_t parameter, uintptr_t site) {
  ObjectRecord* r = record_of(object, kind, site);
  if (!r) return;
  r->trace_parameter.store(parameter, std::memory_order_relaxed);
  r->trace_sequence.store(0, std::memory_order_relaxed);
  r->trace_count.store(0, std::memory_order_release);
}

uint32_t thread_index_of(uint64_t handle) {
  const ThreadHistory& history = runtime().history;
  for (uint32_t index = history.size(); index-- > 0;) {
    const ThreadRecord* r = history.find(index);
    if (r && r->handle.load(std::memory_order_relaxed) == handle &&
        r->phase.load(std::memory_order_acquire) != ThreadPhase::unused) {
      return index;
    }
  }
  return trace::kNoThread;
}

}  // namespace quartz::rt
