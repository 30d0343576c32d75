// The collector of Intel's ITT notifications (docs/design.md "oneTBB and ITT"): how oneTBB,
// and programs annotated with ittnotify, tell a profiler about their threads, tasks and
// waits. Their runtime loads the library named by INTEL_LIBITTNOTIFY64 at its first
// notification; libquartz names libquartz_itt.so there (itt_stub.cpp), which hands the
// runtime's table of entry points to quartz_runtime_itt_init below. It fills:
//   - thread names (oneTBB's "TBB Worker Thread");
//   - sync objects: created (their type or name names the object), prepared (waited for,
//     spinning), acquired (held), released, cancelled;
//   - tasks: oneTBB reports a thread's stay in the dispatch loop of an algorithm or a task
//     group (task_begin/task_end, named "tbb_parallel_invoke", ...) and each task it runs
//     there (stack_callee_enter/leave). Between its tasks the thread waits for the others
//     of the group, an object named after the algorithm (tbb::parallel_invoke); a worker
//     outside every dispatch loop is idle (tbb worker idle), as OpenMP's team threads are.
// LLVM's libomp reports through ITT too, but OMPT tells more (openmp_tool.cpp): its table
// is left empty, as is oneTBB's allocator's (its own free lists).
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

#include "runtime/interpose.h"
#include "runtime/itt_abi.h"
#include "runtime/openmp_team.h"

using namespace quartz::rt;
namespace support = quartz::support;

namespace {

using openmp::OwnObject;

// Domains and task names, made once per name, never freed (the runtimes keep them).
constexpr uint32_t kDomains = 32;
constexpr uint32_t kNames = 256;
constexpr uint32_t kGroupNameBytes = 40;

struct TaskName {
  itt::StringHandle handle;
  OwnObject object;  // the wait for a group of tasks with this name
  char text[kGroupNameBytes];
};

struct Names {
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  uint32_t domain_count;
  uint32_t name_count;
  itt::Domain domains[kDomains];
  TaskName names[kNames];
};
constinit Names g_names{};
static_assert(__builtin_offsetof(TaskName, handle) == 0, "a handle given back finds its name");

// Where the runtimes look for a collector, and ours (libquartz/itt_stub.cpp).
constexpr char kCollectorVariable[] = "INTEL_LIBITTNOTIFY64";
constexpr char kCollectorFile[] = "libquartz_itt.so";

constinit OwnObject g_idle{0, false, "tbb worker idle"};
constinit OwnObject g_unnamed_group{0, false, "tbb task group"};
// oneTBB's name for a worker it starts.
constexpr char kTbbWorker[] = "TBB Worker Thread";

// A dispatch loop the thread is in (task_begin), innermost last.
struct Loop {
  uintptr_t object;  // the group's wait (tbb_wait)
  bool waiting;      // between tasks
  bool suspended;    // waiting when a loop inside began
  Wait wait;
};
constexpr uint32_t kLoops = 8;

struct IttThread {
  Loop loops[kLoops];
  uint32_t depth;
  bool worker;
  bool idle_open;
  Wait idle;
  bool sync_pending;  // a sync object prepared, not yet acquired or cancelled
  Wait sync;
};
__thread IttThread t_itt __attribute__((tls_model("initial-exec")));

// Registers and names one of our objects at its first use.
QUARTZ_NOINSTR uintptr_t own(OwnObject& object, EntryKind kind) {
  const auto address = reinterpret_cast<uintptr_t>(&object.address);
  if (!object.named.exchange(true, std::memory_order_relaxed)) {
    runtime().objects.find_or_insert(address, kind, address);
    runtime().objects.set_name(address, object.name);
  }
  return address;
}

// oneTBB's name of an algorithm's dispatch loop as the program wrote it: "tbb_parallel_for"
// is tbb::parallel_for; "tbb_custom", a context no algorithm named (a task_group's, a
// pipeline's, an arena's work).
QUARTZ_NOINSTR void group_name(const char* itt_name, char* out) {
  const char* rest = strncmp(itt_name, "tbb_", 4) == 0 ? itt_name + 4 : nullptr;
  if (rest && strcmp(rest, "custom") == 0) rest = "task_group_context";
  if (rest) {
    strcpy(out, "tbb::");
    strncat(out, rest, kGroupNameBytes - 6);
  } else {
    strncpy(out, itt_name, kGroupNameBytes - 1);
  }
}

QUARTZ_NOINSTR void lock_names() {
  while (g_names.lock.test_and_set(std::memory_order_acquire)) sched_yield();
}
QUARTZ_NOINSTR void unlock_names() {
  g_names.lock.clear(std::memory_order_release);
}

// The runtimes read `flags` and never free what they get; past the tables' room, names
// share their last entry.
QUARTZ_NOINSTR itt::Domain* domain_create(const char* name) {
  lock_names();
  itt::Domain* found = &g_names.domains[kDomains - 1];
  for (uint32_t i = 0; i < g_names.domain_count; ++i) {
    if (name && g_names.domains[i].name && strcmp(g_names.domains[i].name, name) == 0) {
      found = &g_names.domains[i];
      name = nullptr;
    }
  }
  if (name && g_names.domain_count < kDomains) {
    found = &g_names.domains[g_names.domain_count++];
    found->name = name;  // the runtimes' names are literals
  }
  found->flags = 1;
  unlock_names();
  return found;
}

QUARTZ_NOINSTR itt::StringHandle* string_handle_create(const char* name) {
  if (name == nullptr) return nullptr;
  lock_names();
  TaskName* found = nullptr;
  for (uint32_t i = 0; i < g_names.name_count && !found; ++i) {
    if (strcmp(g_names.names[i].handle.text, name) == 0) {
      found = &g_names.names[i];
    }
  }
  if (!found && g_names.name_count < kNames) {
    found = &g_names.names[g_names.name_count++];
    group_name(name, found->text);
    found->handle.text = name;
    found->object.name = found->text;
  }
  unlock_names();
  return found ? &found->handle : nullptr;
}

QUARTZ_NOINSTR void begin_idle(ThreadBlock& block) {
  if (t_itt.idle_open) return;
  t_itt.idle = begin_wait(block, own(g_idle, EntryKind::tbb_idle), EntryKind::tbb_idle,
                          ThreadState::spinning, support::ticks());
  t_itt.idle_open = true;
}

QUARTZ_NOINSTR void end_idle(ThreadBlock& block) {
  if (!t_itt.idle_open) return;
  t_itt.idle_open = false;
  end_wait(block, runtime().objects, t_itt.idle, WaitOutcome::waited, t_itt.idle.object,
           support::ticks());
}

QUARTZ_NOINSTR void wait_in(ThreadBlock& block, Loop& loop) {
  loop.wait =
      begin_wait(block, loop.object, EntryKind::tbb_wait, ThreadState::spinning, support::ticks());
  loop.waiting = true;
}

QUARTZ_NOINSTR void stop_waiting(ThreadBlock& block, Loop& loop, WaitOutcome outcome) {
  if (!loop.waiting) return;
  loop.waiting = false;
  end_wait(block, runtime().objects, loop.wait, outcome, loop.object, support::ticks());
}

// The innermost dispatch loop the thread is in, if it has room.
QUARTZ_ALWAYS_INLINE Loop* innermost() {
  const uint32_t depth = t_itt.depth;
  return depth > 0 && depth <= kLoops ? &t_itt.loops[depth - 1] : nullptr;
}

void thread_set_name(const char* name) {
  if (name == nullptr) return;
  name_current_thread(name, true);
  if (strcmp(name, kTbbWorker) != 0) return;
  t_itt.worker = true;
  if (ThreadBlock* block = current_block()) begin_idle(*block);
}

void task_begin(const itt::Domain*, itt::Id, itt::Id, itt::StringHandle* name) {
  ThreadBlock* block = current_block();
  Loop* outer = innermost();
  const uint32_t depth = t_itt.depth++;
  if (block == nullptr) return;
  end_idle(*block);
  if (outer) {
    outer->suspended = outer->waiting;
    stop_waiting(*block, *outer, WaitOutcome::failed);
  }
  if (depth >= kLoops) return;
  auto* task_name = reinterpret_cast<TaskName*>(name);  // handle is its first member
  t_itt.loops[depth] = Loop{task_name ? own(task_name->object, EntryKind::tbb_wait)
                                      : own(g_unnamed_group, EntryKind::tbb_wait),
                            false,
                            false,
                            {}};
}

void task_end(const itt::Domain*) {
  if (t_itt.depth == 0) return;
  ThreadBlock* block = current_block();
  Loop* loop = innermost();
  --t_itt.depth;
  if (block == nullptr) return;
  if (loop) stop_waiting(*block, *loop, WaitOutcome::waited);
  if (Loop* outer = innermost(); outer && outer->suspended) {
    outer->suspended = false;
    wait_in(*block, *outer);
  }
  if (t_itt.depth == 0 && t_itt.worker) begin_idle(*block);
}

// A task starts or ends in the innermost loop: between tasks the thread waits.
void callee_enter(itt::Caller) {
  Loop* loop = innermost();
  ThreadBlock* block = current_block();
  if (loop && block) stop_waiting(*block, *loop, WaitOutcome::failed);
}
void callee_leave(itt::Caller) {
  Loop* loop = innermost();
  ThreadBlock* block = current_block();
  if (loop && block && !loop->waiting) wait_in(*block, *loop);
}
itt::Caller caller_create() {
  return &g_names;  // any token: oneTBB hands it back, never reads it
}
void caller_destroy(itt::Caller) {}

void sync_create(void* object, const char* type, const char* name, int) {
  // Types starting with '%' are the runtimes' own ("%Constant": oneTBB's thread monitors).
  const char* given = name && name[0] ? name : type;
  if (object == nullptr || given == nullptr || given[0] == '\0' || given[0] == '%') return;
  if (current_block() != nullptr) {
    runtime().objects.set_name(reinterpret_cast<uintptr_t>(object), given);
  }
}
void sync_rename(void* object, const char* name) {
  sync_create(object, nullptr, name, 0);
}

void sync_prepare(void* object) {
  ThreadBlock* block = current_block();
  if (block == nullptr || t_itt.sync_pending) return;
  t_itt.sync = begin_wait(*block, reinterpret_cast<uintptr_t>(object), EntryKind::mutex,
                          ThreadState::spinning, support::ticks());
  t_itt.sync_pending = true;
}
// The calling thread's block when `object` is the sync object it prepared: no longer pending.
QUARTZ_NOINSTR ThreadBlock* take_pending(void* object) {
  ThreadBlock* block = current_block();
  if (block == nullptr || !t_itt.sync_pending ||
      t_itt.sync.object != reinterpret_cast<uintptr_t>(object)) {
    return nullptr;
  }
  t_itt.sync_pending = false;
  return block;
}
void sync_cancel(void* object) {
  if (ThreadBlock* block = take_pending(object)) {
    end_wait(*block, runtime().objects, t_itt.sync, WaitOutcome::failed, 0, support::ticks());
  }
}
// Acquired without being prepared: oneTBB says so of each task it starts, and of a
// queuing_mutex taken uncontended; neither is held in a way that can be released here.
void sync_acquired(void* object) {
  if (ThreadBlock* block = take_pending(object)) {
    openmp::lock_granted(*block, t_itt.sync, QUARTZ_CALL_SITE(), support::ticks());
  }
}
void sync_releasing(void* object) {
  if (ThreadBlock* block = current_block())
    on_released(*block, reinterpret_cast<uintptr_t>(object));
}

struct Entry {
  const char* name;
  void* function;
};
const Entry kEntries[] = {
    {"__itt_thread_set_name", reinterpret_cast<void*>(thread_set_name)},
    {"__itt_domain_create", reinterpret_cast<void*>(domain_create)},
    {"__itt_string_handle_create", reinterpret_cast<void*>(string_handle_create)},
    {"__itt_task_begin", reinterpret_cast<void*>(task_begin)},
    {"__itt_task_end", reinterpret_cast<void*>(task_end)},
    {"__itt_stack_caller_create", reinterpret_cast<void*>(caller_create)},
    {"__itt_stack_caller_destroy", reinterpret_cast<void*>(caller_destroy)},
    {"__itt_stack_callee_enter", reinterpret_cast<void*>(callee_enter)},
    {"__itt_stack_callee_leave", reinterpret_cast<void*>(callee_leave)},
    {"__itt_sync_create", reinterpret_cast<void*>(sync_create)},
    {"__itt_sync_rename", reinterpret_cast<void*>(sync_rename)},
    {"__itt_sync_prepare", reinterpret_cast<void*>(sync_prepare)},
    {"__itt_sync_cancel", reinterpret_cast<void*>(sync_cancel)},
    {"__itt_sync_acquired", reinterpret_cast<void*>(sync_acquired)},
    {"__itt_sync_releasing", reinterpret_cast<void*>(sync_releasing)},
};

// The runtimes whose notifications are left out (above).
bool told_otherwise(const itt::Global* global) {
  Dl_info info{};
  if (dladdr(global, &info) == 0 || info.dli_fname == nullptr) return false;
  return strstr(info.dli_fname, "libomp") || strstr(info.dli_fname, "libiomp") ||
         strstr(info.dli_fname, "libtbbmalloc");
}

}  // namespace

// Called by libquartz_itt.so's __itt_api_init, once per runtime that notifies (each has
// its own table), under that runtime's lock.
QUARTZ_EXPORT void quartz_runtime_itt_init(void* runtime_global, unsigned int) {
  auto* global = static_cast<itt::Global*>(runtime_global);
  if (global == nullptr || global->api_list == nullptr || !ensure_initialized()) return;
  const bool fill = !told_otherwise(global);
  for (itt::ApiInfo* api = global->api_list; api->name != nullptr; ++api) {
    if (api->function == nullptr) continue;
    void* chosen = api->null_function;
    for (const Entry& e : kEntries) {
      if (fill && api->group != itt::kGroupFsync && strcmp(api->name, e.name) == 0) {
        chosen = e.function;
      }
    }
    *api->function = chosen;
  }
  if (fill) runtime().itt.store(IttView::collector, std::memory_order_relaxed);
}

namespace quartz::rt {

void offer_itt_collector() {
  const char* named = getenv(kCollectorVariable);
  if (named != nullptr && named[0] != '\0') {
    if (strstr(named, kCollectorFile) == nullptr) {
      runtime().itt.store(IttView::program_collector, std::memory_order_relaxed);
    }
    return;
  }
  // The collector next to this library (both are installed in one directory).
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(quartz_runtime_itt_init), &info) == 0 ||
      info.dli_fname == nullptr) {
    return;
  }
  char path[kMaxPathBytes];
  const char* slash = strrchr(info.dli_fname, '/');
  const size_t dir = slash ? static_cast<size_t>(slash - info.dli_fname) + 1 : 0;
  if (dir + sizeof kCollectorFile > sizeof path) return;
  memcpy(path, info.dli_fname, dir);
  memcpy(path + dir, kCollectorFile, sizeof kCollectorFile);
  if (access(path, R_OK) == 0) setenv(kCollectorVariable, path, 0);
}

}  // namespace quartz::rt
