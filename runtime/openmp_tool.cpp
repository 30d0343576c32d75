// The OpenMP tools interface (OMPT) for LLVM's libomp, the runtime of clang's -fopenmp and
// of Intel's and AMD's compilers (docs/design.md "OpenMP"). libomp looks for
// ompt_start_tool when it starts; libquartz, preloaded, provides it and registers:
//   - parallel regions and implicit tasks: a worker starting its share takes on the
//     master's procedures, as with libgomp (openmp_team.h);
//   - waits (barriers implicit and explicit, taskwait, taskgroup, reductions) as objects
//     waited for spinning: libomp spins (KMP_BLOCKTIME, 200 ms), then sleeps on a condition
//     variable, and the sampler's CPU clock readings tell the two apart. While it waits,
//     the thread is hidden from the pthread wrappers: libomp's own condition variable and
//     mutex are the wait, not objects of the program;
//   - explicit tasks run inside a wait (a thread at a barrier or a taskwait runs queued
//     tasks): the wait is suspended while the task runs, which is work;
//   - critical sections, omp locks, ordered and locked atomics as held objects.
// libomp reports the end of a worker's wait at a region's end only when the next region
// starts: a libomp worker waits for the region's end and for the next region in one wait,
// which the sampler splits where the region ended (openmp_regions.h).
//
// A program that brings its own tool (its own ompt_start_tool, or OMP_TOOL_LIBRARIES) keeps
// it; Quartz then sees libomp through pthreads alone, and the run says so.
#include <dlfcn.h>
#include QUARTZ_OMP_TOOLS_H  // omp-tools.h, by its path (runtime/CMakeLists.txt)

#include <cstdlib>

#include "runtime/interpose.h"
#include "runtime/openmp_team.h"

using namespace quartz::rt;
namespace support = quartz::support;

namespace {

using openmp::t_team;

// A region this thread started, in its thread-local memory while the region runs, for its
// workers to read. Regions nested deeper give their workers nothing to inherit.
struct StartedRegion {
  uintptr_t site;  // where the program started it: names its end
  const ThreadBlock* master;
  uint32_t frames;
  uintptr_t frame[openmp::kRegionFrames];
};
constexpr uint32_t kNestedRegions = 2;

// The waits of one thread, one per level of explicit tasks run inside a wait.
constexpr uint32_t kTaskLevels = 8;
struct ToolThread {
  StartedRegion started[kNestedRegions];
  uint32_t started_depth;
  uintptr_t region_site;  // the region whose share the thread runs
  Wait waits[kTaskLevels];
  bool open[kTaskLevels];  // a wait reported begun at this level and not ended
  uint32_t level;          // explicit tasks run one inside another
  ThreadBlock* hidden;     // non-null: hidden from the wrappers while libomp waits
  Wait lock;               // a lock requested, not yet granted
  bool lock_pending;
};
__thread ToolThread t_tool __attribute__((tls_model("initial-exec")));

constinit openmp::OwnObject g_unknown_wait{0, false, "omp wait (no source line)"};

// The calling thread's block, hidden or not.
QUARTZ_ALWAYS_INLINE ThreadBlock* tool_block() {
  return t_tool.hidden ? t_tool.hidden : current_block();
}

// The pthread wrappers pass through while the thread is hidden (as in walk_stack).
QUARTZ_NOINSTR void hide(ThreadBlock* block) {
  if (t_tool.hidden || t_local.block != block) return;
  t_tool.hidden = block;
  t_local.block = nullptr;
  t_local.in_runtime = 1;
}
QUARTZ_NOINSTR void unhide() {
  if (!t_tool.hidden) return;
  t_local.block = t_tool.hidden;
  t_local.in_runtime = 0;
  t_tool.hidden = nullptr;
}

bool is_barrier(ompt_sync_region_t kind) {
  return kind != ompt_sync_region_taskwait && kind != ompt_sync_region_taskgroup;
}

// What a wait of `kind`, reported at `codeptr` (a tail call's: openmp::call_site), waits
// for.
std::pair<uintptr_t, EntryKind> wait_object(const ThreadBlock& block, ompt_sync_region_t kind,
                                            const void* codeptr) {
  const uintptr_t site = openmp::call_site(block, reinterpret_cast<uintptr_t>(codeptr)).object;
  // A region's end: libomp reports it at the region's start for the master, nowhere for
  // a worker (OpenMP 5.1 names it barrier_implicit_parallel; libomp 14 the older kinds).
  const bool implicit = kind == ompt_sync_region_barrier_implicit_parallel ||
                        kind == ompt_sync_region_barrier_implicit ||
                        kind == ompt_sync_region_barrier;
  const bool region_end = implicit && (site == 0 || site == t_tool.region_site);
  if (region_end && t_tool.region_site) return {t_tool.region_site, EntryKind::omp_region_end};
  if (!region_end && site != 0) {
    return {site, is_barrier(kind) ? EntryKind::omp_barrier : EntryKind::omp_task_wait};
  }
  return {openmp::own_object(g_unknown_wait), EntryKind::omp_barrier};
}

// The idle object, registered before a worker waits for it (the sampler shows a worker's
// wait past its region's end as idle, and finds the object's kind and name here).
QUARTZ_NOINSTR void register_idle() {
  static std::atomic<bool> registered{false};
  if (registered.exchange(true, std::memory_order_relaxed)) return;
  const uintptr_t idle = openmp::own_object(openmp::g_idle);
  runtime().objects.find_or_insert(idle, EntryKind::omp_idle, idle);
}

void on_parallel_begin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel, unsigned, int,
                       const void* codeptr) {
  const uint32_t depth = t_tool.started_depth++;
  parallel->ptr = nullptr;
  ThreadBlock* block = tool_block();
  if (block == nullptr) return;
  register_idle();
  const uintptr_t site = openmp::call_site(*block, reinterpret_cast<uintptr_t>(codeptr)).object;
  openmp::region_started(site);
  if (depth >= kNestedRegions) return;
  StartedRegion& region = t_tool.started[depth];
  region.site = site;
  region.master = block;
  region.frames = block->stack.copy_procedures(region.frame, openmp::kRegionFrames);
  parallel->ptr = &region;
}

void on_parallel_end(ompt_data_t*, ompt_data_t*, int, const void* codeptr) {
  if (t_tool.started_depth > 0) --t_tool.started_depth;
  if (ThreadBlock* block = tool_block()) {
    openmp::region_ended(openmp::call_site(*block, reinterpret_cast<uintptr_t>(codeptr)).object);
  }
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t* task,
                      unsigned, unsigned index, int flags) {
  if (flags & ompt_task_initial) return;
  ThreadBlock* block = tool_block();
  if (block == nullptr) return;
  if (endpoint == ompt_scope_begin) {
    const auto* region = parallel ? static_cast<const StartedRegion*>(parallel->ptr) : nullptr;
    task->value = t_team.master;  // given back at the task's end
    t_team.master = index == 0;
    t_tool.region_site = region ? region->site : 0;
    openmp::start_share(*block, region ? region->master : nullptr, region ? region->frame : nullptr,
                        region ? region->frames : 0);
  } else {
    t_team.master = task->value != 0;
    if (index != 0) openmp::begin_idle(*block);
  }
}

void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*,
                         ompt_data_t*, const void* codeptr) {
  ThreadBlock* block = tool_block();
  const uint32_t level = t_tool.level;
  if (block == nullptr || level >= kTaskLevels) return;
  if (endpoint == ompt_scope_begin) {
    if (t_tool.open[level]) return;
    const auto [object, entry_kind] = wait_object(*block, kind, codeptr);
    t_tool.waits[level] = openmp::begin_team_wait(*block, object, entry_kind, object);
    t_tool.open[level] = true;
    hide(block);
  } else if (t_tool.open[level]) {
    t_tool.open[level] = false;
    unhide();
    const Wait& wait = t_tool.waits[level];
    end_wait(*block, runtime().objects, wait, WaitOutcome::waited, wait.object, support::ticks());
  }
}

// A thread starts or resumes a task. An explicit task that starts inside a wait suspends
// it (the task is work, on top of the thread's stack); one that ends resumes the wait it
// interrupted.
void on_task_schedule(ompt_data_t*, ompt_task_status_t status, ompt_data_t*) {
  ThreadBlock* block = tool_block();
  if (block == nullptr) return;
  const bool ended = status != ompt_task_switch && status != ompt_task_yield;
  if (!ended) {
    const uint32_t level = t_tool.level++;
    if (level >= kTaskLevels || !t_tool.open[level]) return;
    unhide();
    end_wait(*block, runtime().objects, t_tool.waits[level], WaitOutcome::failed, 0,
             support::ticks());
    return;
  }
  if (t_tool.level == 0) return;
  const uint32_t level = --t_tool.level;
  if (level >= kTaskLevels || !t_tool.open[level]) return;
  Wait& wait = t_tool.waits[level];
  wait = begin_wait(*block, wait.object, wait.kind, ThreadState::spinning, support::ticks());
  hide(block);
}

EntryKind lock_kind(ompt_mutex_t kind) {
  return kind == ompt_mutex_lock || kind == ompt_mutex_nest_lock || kind == ompt_mutex_test_lock ||
                 kind == ompt_mutex_test_nest_lock
             ? EntryKind::omp_lock
             : EntryKind::omp_critical;  // critical, ordered, atomic (locked)
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned, unsigned, ompt_wait_id_t wait_id, const void*) {
  if (kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock) return;
  ThreadBlock* block = tool_block();
  if (block == nullptr || t_tool.lock_pending) return;
  t_tool.lock =
      begin_wait(*block, wait_id, lock_kind(kind), ThreadState::spinning, support::ticks());
  t_tool.lock_pending = true;
}

void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* codeptr) {
  ThreadBlock* block = tool_block();
  if (block == nullptr) return;
  const auto site = reinterpret_cast<uintptr_t>(codeptr);
  if (t_tool.lock_pending && t_tool.lock.object == wait_id) {
    t_tool.lock_pending = false;
    openmp::lock_granted(*block, t_tool.lock, site, support::ticks());
    return;
  }
  on_acquired(*block, runtime().objects, wait_id, lock_kind(kind), site);
}

void on_mutex_released(ompt_mutex_t, ompt_wait_id_t wait_id, const void*) {
  if (ThreadBlock* block = tool_block()) on_released(*block, wait_id);
}

// A nest lock taken again by its owner: requested (on_mutex_acquire), never waited for.
void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void*) {
  ThreadBlock* block = tool_block();
  if (block == nullptr || endpoint != ompt_scope_begin || !t_tool.lock_pending ||
      t_tool.lock.object != wait_id) {
    return;
  }
  t_tool.lock_pending = false;
  end_wait(*block, runtime().objects, t_tool.lock, WaitOutcome::failed, 0, support::ticks());
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) return 0;
  const auto set = [set_callback](ompt_callbacks_t event, auto callback) {
    return set_callback(event, reinterpret_cast<ompt_callback_t>(callback));
  };
  // Without these, libomp's waits would still look like work: then nothing is registered.
  if (set(ompt_callback_implicit_task, on_implicit_task) != ompt_set_always ||
      set(ompt_callback_sync_region_wait, on_sync_region_wait) == ompt_set_never) {
    return 0;
  }
  set(ompt_callback_parallel_begin, on_parallel_begin);
  set(ompt_callback_parallel_end, on_parallel_end);
  set(ompt_callback_task_schedule, on_task_schedule);
  set(ompt_callback_mutex_acquire, on_mutex_acquire);
  set(ompt_callback_mutex_acquired, on_mutex_acquired);
  set(ompt_callback_mutex_released, on_mutex_released);
  set(ompt_callback_nest_lock, on_nest_lock);
  openmp::g_tool_reports.store(true, std::memory_order_relaxed);
  runtime().openmp.store(OpenmpView::ompt, std::memory_order_relaxed);
  return 1;  // the tool stays active
}

void finalize(ompt_data_t*) {}

}  // namespace

// libomp calls the first ompt_start_tool it finds: ours, preloaded. A program's own tool
// comes first (the next definition, or OMP_TOOL_LIBRARIES, which libomp reads when this
// returns null).
QUARTZ_EXPORT ompt_start_tool_result_t* ompt_start_tool(unsigned int omp_version,
                                                        const char* runtime_version) {
  using StartTool = ompt_start_tool_result_t* (*)(unsigned int, const char*);
  if (auto next = reinterpret_cast<StartTool>(dlsym(RTLD_NEXT, "ompt_start_tool"))) {
    if (ompt_start_tool_result_t* theirs = next(omp_version, runtime_version)) {
      runtime().openmp.store(OpenmpView::program_tool, std::memory_order_relaxed);
      return theirs;
    }
  }
  const char* libraries = std::getenv("OMP_TOOL_LIBRARIES");
  if (libraries != nullptr && libraries[0] != '\0') {
    runtime().openmp.store(OpenmpView::program_tool, std::memory_order_relaxed);
    return nullptr;
  }
  static ompt_start_tool_result_t result{initialize, finalize, {0}};
  return &result;
}
