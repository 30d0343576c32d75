// What the two ways of seeing OpenMP share (docs/design.md "OpenMP"): GNU libgomp's entry
// points, interposed (interpose_openmp.cpp), and the OpenMP tools interface OMPT of LLVM's
// libomp, also the runtime of Intel's and AMD's compilers (openmp_tool.cpp).
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/openmp_regions.h"
#include "runtime/runtime.h"
#include "runtime/sync_events.h"
#include "support/attributes.h"
#include "support/clock.h"

namespace quartz::rt::openmp {

// A thread's place in OpenMP teams. `idle`: the wait a worker entered after its last
// region, ended when it starts the next. `master`: the thread started the innermost region
// it works in; it counts the instances of that region's waits (the objects' posts), so that
// the analysis knows how many threads each instance had.
struct TeamThread {
  Wait idle;
  bool idle_open;
  bool master;
};
extern __thread TeamThread t_team __attribute__((tls_model("initial-exec")));

// Set once LLVM's runtime reports through OMPT (openmp_tool.cpp): it implements the
// libgomp entry points and omp locks too, and reports them itself; their wrappers then
// pass through.
extern std::atomic<bool> g_tool_reports;
QUARTZ_ALWAYS_INLINE bool tool_reports() {
  return g_tool_reports.load(std::memory_order_relaxed);
}

// Whether `address` is in libquartz's own code. A call reported there was a tail call (a
// barrier that ends a region's body, a region that ends a function: gcc and clang make
// them jumps), returning into the runtime or a patched entry's trampoline.
bool in_own_code(uintptr_t address);

// Where a wait or region reported at `site` is keyed and named: the site; for a tail
// call, the procedure that made it (the innermost on the thread's stack), keyed one byte
// past its address, which may key that region's end.
struct CallSite {
  uintptr_t object, site;
};
CallSite call_site(const ThreadBlock& block, uintptr_t site);

// Procedures of the master's stack a worker takes on (deeper ones are left out).
constexpr uint32_t kRegionFrames = 64;

// A lock granted within this many ticks (about a microsecond) was not contended: an
// uncontended one takes tens of nanoseconds.
constexpr uint64_t kContendedTicks = 2000;

QUARTZ_NOINSTR void name_object(OwnObject& object);
// The object's address, naming it on first use.
QUARTZ_ALWAYS_INLINE uintptr_t own_object(OwnObject& object) {
  if (QUARTZ_UNLIKELY(!object.named.load(std::memory_order_relaxed))) name_object(object);
  return reinterpret_cast<uintptr_t>(&object.address);
}

// A worker starts its share of a region the master (null: not profiled) started with
// `frames` on its stack: its idle wait ends, and if it holds only what it inherited, it now
// works on behalf of the master's stack (a pooled worker's work is charged where the region
// was started, not where the pool was created).
QUARTZ_NOINSTR void start_share(ThreadBlock& block, const ThreadBlock* master,
                                const uintptr_t* frames, uint32_t count);
// A worker done with its region waits, as "omp idle", for the next.
QUARTZ_NOINSTR void begin_idle(ThreadBlock& block);
// The idle wait, if open, ends (a worker starts a region).
QUARTZ_NOINSTR void end_idle(ThreadBlock& block);

// The calling thread starts waiting (spinning: both runtimes spin before they sleep, and
// the sampler's CPU clock readings tell the two apart) for `object`, a wait that leaves
// nothing held; a master counts the instance.
QUARTZ_NOINSTR Wait begin_team_wait(ThreadBlock& block, uintptr_t object, EntryKind kind,
                                    uintptr_t site);

// A lock requested in `wait` was granted at `granted` ticks: held, and contended when it
// took at least kContendedTicks.
QUARTZ_NOINSTR void lock_granted(ThreadBlock& block, const Wait& wait, uintptr_t site,
                                 uint64_t granted);

}  // namespace quartz::rt::openmp
