// Wrappers for GNU libgomp's entry points: the calls gcc's -fopenmp makes for parallel
// regions, barriers, critical sections and omp locks (docs/design.md "OpenMP").
//
// gcc outlines a parallel region into an artificial function (main._omp_fn.0) that gets no
// -finstrument-functions hooks, and libgomp's waits (spinning, then a futex) are invisible
// to the pthread wrappers. Here:
//   - a region's function runs through run_region on every team thread: it is pushed as a
//     procedure (its entry's line is the pragma's), and a pooled worker first takes the
//     master's procedures as its inherited stack, so its work is charged where the region
//     was started, not where the pool was created;
//   - each team thread then waits in one barrier of ours before libgomp's implicit one, so
//     the time a thread done with its share waits for the others is known (the region's
//     end, a load imbalance); a worker then waits as "omp idle" until its next region;
//   - barriers, criticals and omp locks are objects on the stack, waited for spinning:
//     libgomp spins, then sleeps in a futex, and the sampler's CPU clock readings tell the
//     two apart (a spinning thread that does not run counts blocked).
// libgomp's functions are found with dlsym(RTLD_NEXT) at start-up, or at the first call
// when libgomp was loaded later (dlopen).
#include <dlfcn.h>
#include <link.h>

#include <cstring>

#include "runtime/interpose.h"
#include "runtime/openmp_team.h"
#include "runtime/patched_entry.h"
#include "runtime/real.h"

using namespace quartz::rt;
namespace support = quartz::support;

namespace {

using RegionFunction = void (*)(void*);
using ParallelFn = void (*)(RegionFunction, void*, unsigned, unsigned);
using ParallelLoopFn = void (*)(RegionFunction, void*, unsigned, long, long, long, long, unsigned);
using ParallelLoopRuntimeFn = void (*)(RegionFunction, void*, unsigned, long, long, long, unsigned);
using ParallelSectionsFn = void (*)(RegionFunction, void*, unsigned, unsigned, unsigned);
using VoidFn = void (*)();
using NamedCriticalFn = void (*)(void**);
using LockFn = void (*)(void*);
using TestLockFn = int (*)(void*);

// X(name, type): every libgomp function we interpose.
#define QUARTZ_OPENMP_FUNCTIONS(X)                                        \
  X(GOMP_parallel, ParallelFn)                                            \
  X(GOMP_parallel_loop_static, ParallelLoopFn)                            \
  X(GOMP_parallel_loop_dynamic, ParallelLoopFn)                           \
  X(GOMP_parallel_loop_guided, ParallelLoopFn)                            \
  X(GOMP_parallel_loop_nonmonotonic_dynamic, ParallelLoopFn)              \
  X(GOMP_parallel_loop_nonmonotonic_guided, ParallelLoopFn)               \
  X(GOMP_parallel_loop_runtime, ParallelLoopRuntimeFn)                    \
  X(GOMP_parallel_loop_nonmonotonic_runtime, ParallelLoopRuntimeFn)       \
  X(GOMP_parallel_loop_maybe_nonmonotonic_runtime, ParallelLoopRuntimeFn) \
  X(GOMP_parallel_sections, ParallelSectionsFn)                           \
  X(GOMP_barrier, VoidFn)                                                 \
  X(GOMP_loop_end, VoidFn)                                                \
  X(GOMP_sections_end, VoidFn)                                            \
  X(GOMP_critical_start, VoidFn)                                          \
  X(GOMP_critical_end, VoidFn)                                            \
  X(GOMP_critical_name_start, NamedCriticalFn)                            \
  X(GOMP_critical_name_end, NamedCriticalFn)                              \
  X(GOMP_atomic_start, VoidFn)                                            \
  X(GOMP_atomic_end, VoidFn)                                              \
  X(omp_set_lock, LockFn)                                                 \
  X(omp_unset_lock, LockFn)                                               \
  X(omp_test_lock, TestLockFn)                                            \
  X(omp_set_nest_lock, LockFn)                                            \
  X(omp_unset_nest_lock, LockFn)                                          \
  X(omp_test_nest_lock, TestLockFn)

namespace gomp {
#define QUARTZ_DEFINE_GOMP(name, type) constinit type name = nullptr;
QUARTZ_OPENMP_FUNCTIONS(QUARTZ_DEFINE_GOMP)
#undef QUARTZ_DEFINE_GOMP
}  // namespace gomp

// The libgomp function behind `pointer`, resolving now if libgomp came after start-up.
template <typename F>
QUARTZ_ALWAYS_INLINE F gomp_function(F& pointer) {
  if (QUARTZ_UNLIKELY(pointer == nullptr)) {
    ensure_initialized();
    if (pointer == nullptr) real::resolve_openmp_functions();
  }
  return pointer;
}

using openmp::own_object;
using openmp::OwnObject;
using openmp::t_team;

// One parallel region, on the master's stack for the region's lifetime.
struct Region {
  RegionFunction function;
  void* data;
  ThreadBlock* master;  // null: the master is not profiled
  VoidFn barrier;       // non-null: every team thread waits there after its share
  uint32_t frames;
  uintptr_t frame[openmp::kRegionFrames];
};

constinit OwnObject g_unnamed_critical{0, false, "omp critical (unnamed)"};
constinit OwnObject g_atomic_lock{0, false, "omp atomic (libgomp's lock)"};

// The calling thread waits for `object` in `wait()`, which leaves nothing held.
template <typename WaitFn>
QUARTZ_ALWAYS_INLINE void wait_at(ThreadBlock* block, uintptr_t object, EntryKind kind,
                                  uintptr_t site, WaitFn wait) {
  const Wait w = openmp::begin_team_wait(*block, object, kind, site);
  wait();
  end_wait(*block, runtime().objects, w, WaitOutcome::waited, site, support::ticks());
}

// Pushes the region's function as a procedure, counting the call from the one below.
QUARTZ_NOINSTR void enter_region(ThreadBlock* block, uintptr_t function) {
  const ProfileStack::Push push = block->stack.begin_push(function, kProcedureTag);
  block->stack.finish_push(push, function, kProcedureTag);
  count_call(block, push.below_entry ? block->stack.caller_at(push.below_entry) : push.below,
             function);
}

// Runs on every thread of the team, in place of the region's function.
QUARTZ_NOINSTR void run_region(void* argument) {
  const Region& region = *static_cast<const Region*>(argument);
  ThreadBlock* block = current_block();
  if (block == nullptr) {
    region.function(region.data);
    if (region.barrier) region.barrier();  // every team thread must, or the others hang
    return;
  }
  const bool outer_master = t_team.master;
  const bool master = block == region.master;
  t_team.master = master;
  openmp::start_share(*block, region.master, region.frame, region.frames);
  const auto function = reinterpret_cast<uintptr_t>(region.function);
  const bool entry_seen = entry_is_on(function);  // its patched entry pushes it itself
  if (!entry_seen) enter_region(block, function);
  region.function(region.data);
  if (!entry_seen) block->stack.pop_procedure(function);
  if (region.barrier) {
    wait_at(block, function, EntryKind::omp_region_end, function, region.barrier);
  }
  t_team.master = outer_master;
  if (!master) openmp::begin_idle(*block);
}

// Starts a region through `start(function, data)` (libgomp's entry point with its other
// arguments bound), the region's function wrapped.
template <typename Start>
QUARTZ_ALWAYS_INLINE void start_region(RegionFunction function, void* data, Start start) {
  ThreadBlock* block = current_block();
  VoidFn barrier = gomp_function(gomp::GOMP_barrier);
  if (block == nullptr || barrier == nullptr || openmp::tool_reports())
    return start(function, data);
  if (QUARTZ_UNLIKELY(runtime().openmp.load(std::memory_order_relaxed) != OpenmpView::libgomp)) {
    runtime().openmp.store(OpenmpView::libgomp, std::memory_order_relaxed);
  }
  Region region{function, data, block, barrier, 0, {}};
  region.frames = block->stack.copy_procedures(region.frame, openmp::kRegionFrames);
  start(run_region, &region);
}

// A lock of libgomp's, taken by `lock()`. It is waited for spinning (libgomp spins before
// it sleeps). libgomp's lock word is not ours to read: its layout is libgomp's own, and
// other runtimes (LLVM's libomp) provide the same entry points.
template <typename LockFnT>
QUARTZ_ALWAYS_INLINE void take_lock(uintptr_t object, EntryKind kind, uintptr_t site,
                                    LockFnT lock) {
  ThreadBlock* block = current_block();
  if (block == nullptr || openmp::tool_reports()) return lock();
  const Wait w = begin_wait(*block, object, kind, ThreadState::spinning, support::ticks());
  lock();
  openmp::lock_granted(*block, w, site, support::ticks());
}

template <typename UnlockFn>
QUARTZ_ALWAYS_INLINE void release_lock(uintptr_t object, UnlockFn unlock) {
  ThreadBlock* block = t_local.block;
  if (block != nullptr && !openmp::tool_reports()) on_released(*block, object);
  unlock();
}

// A successful omp_test_lock: held without waiting.
QUARTZ_ALWAYS_INLINE void tested_lock(uintptr_t object, uintptr_t site) {
  ThreadBlock* block = current_block();
  if (block != nullptr && !openmp::tool_reports()) {
    on_acquired(*block, runtime().objects, object, EntryKind::omp_lock, site);
  }
}

QUARTZ_ALWAYS_INLINE uintptr_t address_of(const volatile void* object) {
  return reinterpret_cast<uintptr_t>(object);
}

}  // namespace

namespace quartz::rt::real {
namespace {
// Whether an OpenMP runtime (GNU libgomp, LLVM libomp) is loaded. Looked up before dlsym:
// a dlsym that fails leaves the thread an error buffer from malloc, which a program whose
// main thread ends with pthread_exit never frees (a leak LeakSanitizer reports).
bool openmp_runtime_loaded() {
  return dl_iterate_phdr(
             [](dl_phdr_info* info, size_t, void*) {
               const char* path = info->dlpi_name;
               return path && (std::strstr(path, "libgomp") || std::strstr(path, "libomp") ||
                               std::strstr(path, "libiomp"))
                          ? 1
                          : 0;
             },
             nullptr) != 0;
}
}  // namespace

void resolve_openmp_functions() {
  if (!openmp_runtime_loaded()) return;
#define QUARTZ_RESOLVE_GOMP(name, type) \
  if (!gomp::name) gomp::name = reinterpret_cast<type>(dlsym(RTLD_NEXT, #name));
  QUARTZ_OPENMP_FUNCTIONS(QUARTZ_RESOLVE_GOMP)
#undef QUARTZ_RESOLVE_GOMP
}
}  // namespace quartz::rt::real

// ---- parallel regions ------------------------------------------------------------------
// Without libgomp's function (which cannot happen in a program that calls it) a region
// runs on the calling thread alone, a legal team of one.

QUARTZ_EXPORT void GOMP_parallel(RegionFunction fn, void* data, unsigned threads, unsigned flags) {
  ParallelFn start = gomp_function(gomp::GOMP_parallel);
  if (!start) return fn(data);
  start_region(fn, data, [=](RegionFunction f, void* d) { start(f, d, threads, flags); });
}

#define QUARTZ_PARALLEL_LOOP(name)                                                               \
  QUARTZ_EXPORT void name(RegionFunction fn, void* data, unsigned threads, long begin, long end, \
                          long step, long chunk, unsigned flags) {                               \
    ParallelLoopFn start = gomp_function(gomp::name);                                            \
    if (!start) return fn(data);                                                                 \
    start_region(fn, data, [=](RegionFunction f, void* d) {                                      \
      start(f, d, threads, begin, end, step, chunk, flags);                                      \
    });                                                                                          \
  }
QUARTZ_PARALLEL_LOOP(GOMP_parallel_loop_static)
QUARTZ_PARALLEL_LOOP(GOMP_parallel_loop_dynamic)
QUARTZ_PARALLEL_LOOP(GOMP_parallel_loop_guided)
QUARTZ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
QUARTZ_PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
#undef QUARTZ_PARALLEL_LOOP

#define QUARTZ_PARALLEL_LOOP_RUNTIME(name)                                                       \
  QUARTZ_EXPORT void name(RegionFunction fn, void* data, unsigned threads, long begin, long end, \
                          long step, unsigned flags) {                                           \
    ParallelLoopRuntimeFn start = gomp_function(gomp::name);                                     \
    if (!start) return fn(data);                                                                 \
    start_region(fn, data, [=](RegionFunction f, void* d) {                                      \
      start(f, d, threads, begin, end, step, flags);                                             \
    });                                                                                          \
  }
QUARTZ_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
QUARTZ_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
QUARTZ_PARALLEL_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
#undef QUARTZ_PARALLEL_LOOP_RUNTIME

QUARTZ_EXPORT void GOMP_parallel_sections(RegionFunction fn, void* data, unsigned threads,
                                          unsigned count, unsigned flags) {
  ParallelSectionsFn start = gomp_function(gomp::GOMP_parallel_sections);
  if (!start) return fn(data);
  start_region(fn, data, [=](RegionFunction f, void* d) { start(f, d, threads, count, flags); });
}

// ---- barriers: explicit, and the ends of worksharing loops and sections ------------------

#define QUARTZ_BARRIER(name)                                                        \
  QUARTZ_EXPORT void name() {                                                       \
    VoidFn wait = gomp_function(gomp::name);                                        \
    if (!wait) return;                                                              \
    ThreadBlock* block = current_block();                                           \
    if (block == nullptr || openmp::tool_reports()) return wait();                  \
    const openmp::CallSite at = openmp::call_site(*block, QUARTZ_CALL_SITE());      \
    wait_at(block, at.object, EntryKind::omp_barrier, at.site, [wait] { wait(); }); \
  }
QUARTZ_BARRIER(GOMP_barrier)
QUARTZ_BARRIER(GOMP_loop_end)
QUARTZ_BARRIER(GOMP_sections_end)
#undef QUARTZ_BARRIER

// ---- critical sections and atomics -----------------------------------------------------

QUARTZ_EXPORT void GOMP_critical_start() {
  VoidFn lock = gomp_function(gomp::GOMP_critical_start);
  if (!lock) return;
  take_lock(own_object(g_unnamed_critical), EntryKind::omp_critical, QUARTZ_CALL_SITE(), lock);
}

QUARTZ_EXPORT void GOMP_critical_end() {
  VoidFn unlock = gomp_function(gomp::GOMP_critical_end);
  if (!unlock) return;
  release_lock(reinterpret_cast<uintptr_t>(&g_unnamed_critical.address), unlock);
}

QUARTZ_EXPORT void GOMP_critical_name_start(void** name) {
  NamedCriticalFn lock = gomp_function(gomp::GOMP_critical_name_start);
  if (!lock) return;
  take_lock(address_of(name), EntryKind::omp_critical, QUARTZ_CALL_SITE(), [=] { lock(name); });
}

QUARTZ_EXPORT void GOMP_critical_name_end(void** name) {
  NamedCriticalFn unlock = gomp_function(gomp::GOMP_critical_name_end);
  if (!unlock) return;
  release_lock(address_of(name), [=] { unlock(name); });
}

QUARTZ_EXPORT void GOMP_atomic_start() {
  VoidFn lock = gomp_function(gomp::GOMP_atomic_start);
  if (!lock) return;
  take_lock(own_object(g_atomic_lock), EntryKind::omp_critical, QUARTZ_CALL_SITE(), lock);
}

QUARTZ_EXPORT void GOMP_atomic_end() {
  VoidFn unlock = gomp_function(gomp::GOMP_atomic_end);
  if (!unlock) return;
  release_lock(reinterpret_cast<uintptr_t>(&g_atomic_lock.address), unlock);
}

// ---- omp locks (omp.h's OpenMP 3.0 ABI, libgomp's default symbol version) ----------------

namespace {
// The lock functions and their nest variants alike: libgomp's own behind `real`.
QUARTZ_ALWAYS_INLINE void set_lock(LockFn& real, void* lock, uintptr_t site) {
  LockFn set = gomp_function(real);
  if (!set) return;
  take_lock(address_of(lock), EntryKind::omp_lock, site, [=] { set(lock); });
}
QUARTZ_ALWAYS_INLINE void unset_lock(LockFn& real, void* lock) {
  LockFn unset = gomp_function(real);
  if (!unset) return;
  release_lock(address_of(lock), [=] { unset(lock); });
}
QUARTZ_ALWAYS_INLINE int test_lock(TestLockFn& real, void* lock, uintptr_t site) {
  TestLockFn test = gomp_function(real);
  if (!test) return 0;
  const int rc = test(lock);
  if (rc) tested_lock(address_of(lock), site);
  return rc;
}
}  // namespace

QUARTZ_EXPORT void omp_set_lock(void* lock) {
  set_lock(gomp::omp_set_lock, lock, QUARTZ_CALL_SITE());
}
QUARTZ_EXPORT void omp_unset_lock(void* lock) {
  unset_lock(gomp::omp_unset_lock, lock);
}
QUARTZ_EXPORT int omp_test_lock(void* lock) {
  return test_lock(gomp::omp_test_lock, lock, QUARTZ_CALL_SITE());
}
QUARTZ_EXPORT void omp_set_nest_lock(void* lock) {
  set_lock(gomp::omp_set_nest_lock, lock, QUARTZ_CALL_SITE());
}
QUARTZ_EXPORT void omp_unset_nest_lock(void* lock) {
  unset_lock(gomp::omp_unset_nest_lock, lock);
}
QUARTZ_EXPORT int omp_test_nest_lock(void* lock) {
  return test_lock(gomp::omp_test_nest_lock, lock, QUARTZ_CALL_SITE());
}
