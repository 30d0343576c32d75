// Wrappers for thread creation, joining, ending and naming (std::thread comes through
// here). A new thread starts with a copy of its creator's profile stack, so the work it
// does is charged to the procedures that created it (DESIGN.md §2 "On behalf of").
#include <pthread.h>

#include "runtime/interpose.h"
#include "runtime/placement.h"
#include "runtime/return_stack.h"

using namespace quartz::rt;
namespace support = quartz::support;
namespace trace = quartz::trace;

namespace {

// Runs first in every thread created through our pthread_create.
QUARTZ_NOINSTR void* start_thread(void* argument) {
  auto* slot = static_cast<ThreadSlot*>(argument);
  ThreadBlock* block = slot->block.load(std::memory_order_relaxed);
  void* (*routine)(void*) = block->start_routine;
  void* routine_argument = block->start_arg;
  start_child(slot);
  void* result = routine(routine_argument);
  record_end_cpu(*block);
  return result;
}

// The block of a thread other than the caller, found by walking the registry.
QUARTZ_NOINSTR ThreadBlock* find_block(pthread_t thread) {
  if (pthread_equal(thread, pthread_self())) return t_local.block;
  ThreadBlock* found = nullptr;
  runtime().threads.for_each([&](ThreadSlot& slot, SlotStatus status) {
    ThreadBlock* block = slot.block.load(std::memory_order_acquire);
    if (status == SlotStatus::live && block && pthread_equal(block->self, thread)) found = block;
  });
  return found;
}

template <typename JoinFn>
QUARTZ_ALWAYS_INLINE int join_thread(pthread_t thread, void** result, uintptr_t site, JoinFn join) {
  ThreadBlock* block = current_block();
  if (!block || !real::pthread_tryjoin_np) return join();
  int rc = real::pthread_tryjoin_np(thread, result);
  const auto object = reinterpret_cast<uintptr_t>(thread);
  ObjectRegistry& objects = runtime().objects;
  if (rc == 0) {
    count_acquisition(*block, objects, object, EntryKind::join, site, false, 0);
    if (block->trace) {
      record_event(*block, trace::Type::join_end, EntryKind::join, thread_index_of(object), 0, 0,
                   support::ticks());
    }
    return 0;
  }
  if (rc != EBUSY) return join();  // the real call reports the error itself
  const uint32_t target = block->trace ? thread_index_of(object) : trace::kNoThread;
  const Wait w =
      begin_wait(*block, object, EntryKind::join, ThreadState::blocked, support::ticks());
  if (block->trace) {
    record_event(*block, trace::Type::join_begin, EntryKind::join, target, 0, 0, w.started_ticks);
  }
  rc = join();
  end_wait(*block, objects, w, rc == 0 ? WaitOutcome::waited : WaitOutcome::failed, site,
           support::ticks());
  if (rc == 0 && block->trace)
    record_event(*block, trace::Type::join_end, EntryKind::join, target, 0, 0, support::ticks());
  return rc;
}

}  // namespace

QUARTZ_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                                 void* (*routine)(void*), void* argument) {
  if (!have_real<real::pthread_create>()) return ENOSYS;
  ThreadBlock* creator = current_block();
  if (!creator && (t_local.ignored || t_local.in_runtime)) {
    return real::pthread_create(thread, attr, routine, argument);
  }
  ThreadSlot* slot = prepare_child(creator);
  if (!slot) return real::pthread_create(thread, attr, routine, argument);
  ThreadBlock* child = slot->block.load(std::memory_order_relaxed);
  child->start_routine = routine;
  child->start_arg = argument;
  const uint32_t child_index = child->index;
  // Timed before the real call: the child may start before it returns.
  const uint64_t created = creator && creator->trace ? support::ticks() : 0;
  const int rc = real::pthread_create(thread, attr, start_thread, slot);
  if (rc != 0) {
    runtime().threads.abandon(slot);
    return rc;
  }
  if (ThreadRecord* record = runtime().history.at(child_index)) {
    record->handle.store(static_cast<uint64_t>(*thread), std::memory_order_relaxed);
  }
  if (created)
    record_event(*creator, trace::Type::create, EntryKind::procedure, child_index, 0, 0, created);
  return rc;
}

QUARTZ_EXPORT int pthread_join(pthread_t thread, void** result) {
  if (!have_real<real::pthread_join>()) return ENOSYS;
  return join_thread(thread, result, QUARTZ_CALL_SITE(),
                     [thread, result] { return real::pthread_join(thread, result); });
}

QUARTZ_EXPORT int pthread_timedjoin_np(pthread_t thread, void** result,
                                       const struct timespec* deadline) {
  if (!have_real<real::pthread_timedjoin_np>()) return ENOSYS;
  return join_thread(thread, result, QUARTZ_CALL_SITE(), [thread, result, deadline] {
    return real::pthread_timedjoin_np(thread, result, deadline);
  });
}

QUARTZ_EXPORT void pthread_exit(void* result) {
  // The thread's end is recorded by the exit key's destructor, which runs after the
  // cancellation-style unwind that pthread_exit starts (exit hooks run during it).
  if (ThreadBlock* block = t_local.block) {
    if (ThreadRecord* record = runtime().history.at(block->index)) {
      record->exit_kind.store(2, std::memory_order_relaxed);
    }
  }
  ensure_initialized();
  restore_return_addresses();  // glibc's unwind walks the frames (return_stack.h)
  real::pthread_exit(result);
  __builtin_unreachable();
}

// The name the program gives a thread names it in reports (ThreadRecord::named). Placing
// the thread by its new name may make system calls: errno stays the real call's.
QUARTZ_EXPORT int pthread_setname_np(pthread_t thread, const char* name) {
  if (!have_real<real::pthread_setname_np>()) return ENOSYS;
  const int rc = real::pthread_setname_np(thread, name);
  if (rc != 0) return rc;
  const int saved_errno = errno;
  if (ThreadBlock* block = find_block(thread)) {
    if (ThreadRecord* record = runtime().history.at(block->index)) {
      ThreadHistory::set_given_name(*record, name);
    }
    place_thread(block->tid.load(std::memory_order_relaxed), block->index, name);
  }
  errno = saved_errno;
  return rc;
}
