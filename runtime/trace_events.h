// What the wrappers record when tracing (`quartz run --trace`; DESIGN.md §3 "Trace").
// Each call appends to the calling thread's own queue (trace_queue.h); pairing numbers
// come from the object's process-wide record, read and written while the caller holds
// the object where it can (a lock's acquisitions are numbered inside the critical
// section, so plain loads and stores order them), with an atomic add where it cannot
// (posts, signals, arrivals, read acquisitions). Every function here expects
// `block.trace` to be set: callers test it first, so that not tracing costs one load.
#pragma once

#include <cstdint>

#include "format/trace_format.h"
#include "runtime/thread_block.h"
#include "support/attributes.h"
#include "support/clock.h"

namespace quartz::rt {

// Ticks between two readings of a thread's CPU clock for the trace (set by the sampler from
// QUARTZ_TRACE_CPU_US; 0 until then: every event reads it).
extern uint64_t g_trace_cpu_interval_ticks;

// Appends the thread's CPU clock to its trace: the offline replay needs each segment's
// processor time, and the sampler's readings are too far apart to tell a preempted
// segment from one that ran. One system call (~1 µs here), so at most one per interval.
QUARTZ_NOINLINE void record_cpu(ThreadBlock& block, uint64_t now_ticks);

// Appends an event without reading the CPU clock: for an event recorded late, with a time
// before that of an event that follows it at once (a wait's start, pushed with its end).
QUARTZ_ALWAYS_INLINE void push_event(ThreadBlock& block, trace::Type type, EntryKind kind,
                                     uint64_t object, uint32_t sequence, uint32_t aux,
                                     uint64_t at_ticks) {
  block.trace->push(TraceEvent{at_ticks, object, sequence, aux, block.stack.sequence(), type,
                               static_cast<uint8_t>(kind), 0});
}

QUARTZ_ALWAYS_INLINE void record_event(ThreadBlock& block, trace::Type type, EntryKind kind,
                                       uint64_t object, uint32_t sequence, uint32_t aux,
                                       uint64_t at_ticks) {
  push_event(block, type, kind, object, sequence, aux, at_ticks);
  if (at_ticks - block.trace_cpu_ticks >= g_trace_cpu_interval_ticks) record_cpu(block, at_ticks);
}

// A lock was granted (held now). `requested_ticks`: when it was asked for (0: not timed,
// a first try that succeeded); `waited`: it was not free then. Emits the request too when
// the thread waited, and before both, for the mutex of the thread's latest condition wait,
// the critical section the condition's latest signal came from (lock_fed): the replay
// keeps a consumer that found its item without waiting behind the producer that queued
// it, as it keeps a woken one behind its signal (issue 38).
QUARTZ_NOINLINE void trace_lock_acquired(ThreadBlock& block, uintptr_t object, EntryKind kind,
                                         uint64_t requested_ticks, bool waited);
// A lock is about to be released (still held).
QUARTZ_NOINLINE void trace_lock_released(ThreadBlock& block, uintptr_t object, EntryKind kind);

// Around a condition wait: the mutex is given up, then taken back after the wake.
QUARTZ_NOINLINE void trace_condition_wait(ThreadBlock& block, uintptr_t condition, uintptr_t mutex,
                                          uintptr_t site);
QUARTZ_NOINLINE void trace_condition_woken(ThreadBlock& block, uintptr_t condition,
                                           uintptr_t mutex);
// A signal names the critical section it comes from: the thread's latest acquisition of a
// mutex, held or just released (notified after unlocking); the condition keeps it for
// the next waiter's acquisitions (ObjectRecord::trace_parameter).
QUARTZ_NOINLINE void trace_condition_signal(ThreadBlock& block, uintptr_t condition, bool broadcast,
                                            uintptr_t site);

// Around a barrier wait; returns the arrival number to hand to trace_barrier_depart.
QUARTZ_NOINLINE uint32_t trace_barrier_arrive(ThreadBlock& block, uintptr_t barrier,
                                              uintptr_t site);
QUARTZ_NOINLINE void trace_barrier_depart(ThreadBlock& block, uintptr_t barrier, uint32_t arrival);

QUARTZ_NOINLINE void trace_semaphore_post(ThreadBlock& block, uintptr_t semaphore, uintptr_t site);
// A semaphore wait succeeded; `requested_ticks` and `waited` as for locks.
QUARTZ_NOINLINE void trace_semaphore_acquired(ThreadBlock& block, uintptr_t semaphore,
                                              uint64_t requested_ticks, bool waited);

// Signals between the program's threads, recorded as the posts and acquisitions of the
// receiving thread's or the process's semaphore (trace_format.h kThreadSignals): one is
// about to be sent to the thread whose pthread_t is `target_handle` (pthread_kill), or to
// the process (kill of its own pid); this thread took one in a signal wait (sigwait and
// friends, sigsuspend) that began when the signals sent so far were `before` (`waited`:
// none it could take was pending then). It took the thread's own when that count moved
// during the wait, else the process's when that moved, else the latest sent before.
struct SignalsSent {
  uint32_t to_thread = 0, to_process = 0;
};
QUARTZ_NOINSTR SignalsSent signals_sent(const ThreadBlock& block);
QUARTZ_NOINLINE void trace_thread_signal(ThreadBlock& block, uint64_t target_handle);
QUARTZ_NOINLINE void trace_process_signal(ThreadBlock& block);
QUARTZ_NOINLINE void trace_signal_taken(ThreadBlock& block, const SignalsSent& before,
                                        uint64_t requested_ticks, bool waited);

// Remembers what offline pairing needs of a barrier or semaphore being initialised (its
// count, its initial value) and restarts its numbering. Works whether or not tracing.
QUARTZ_NOINSTR void note_initialised(uintptr_t object, EntryKind kind, uint32_t parameter,
                                     uintptr_t site);

// The index of the thread whose pthread_t is `handle` (the newest such thread: handles
// are reused once a thread is joined), or trace::kNoThread.
QUARTZ_NOINSTR uint32_t thread_index_of(uint64_t handle);

}  // namespace quartz::rt
