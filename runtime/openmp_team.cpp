#include "runtime/openmp_team.h"

#include "runtime/interpose.h"
#include "support/code_segments.h"

namespace quartz::rt::openmp {

constinit std::atomic<bool> g_tool_reports{false};
__thread TeamThread t_team __attribute__((tls_model("initial-exec")));

namespace {
// A worker works for whichever region it is given: none of the procedures it runs names it
// (ThreadRecord::routines, which the enter hook stops filling once full); reports name it
// by its kernel name, its creator's.
QUARTZ_NOINSTR void forget_routines(ThreadBlock& block) {
  ThreadRecord* record = block.record;
  if (record == nullptr || record->routine_count.load(std::memory_order_relaxed) == kThreadRoutines)
    return;
  for (std::atomic<uintptr_t>& routine : record->routines) {
    routine.store(0, std::memory_order_relaxed);
  }
  record->routine_count.store(kThreadRoutines, std::memory_order_relaxed);
}
}  // namespace

namespace {
// libquartz's executable segment, found at the first question (dl_iterate_phdr; threads
// that ask at once all find the same).
constinit std::atomic<bool> g_own_code_known{false};
constinit std::atomic<uintptr_t> g_own_code_begin{0}, g_own_code_end{0};

QUARTZ_NOINSTR int find_own_code(dl_phdr_info* info, size_t, void*) {
  const auto own = reinterpret_cast<uintptr_t>(&find_own_code);
  int found = 0;
  support::for_each_code_segment(info, [&](uintptr_t begin, uintptr_t end) {
    if (own < begin || own >= end) return;
    g_own_code_begin.store(begin, std::memory_order_relaxed);
    g_own_code_end.store(end, std::memory_order_relaxed);
    found = 1;
  });
  return found;
}
}  // namespace

bool in_own_code(uintptr_t address) {
  if (!g_own_code_known.load(std::memory_order_acquire)) {
    dl_iterate_phdr(find_own_code, nullptr);
    g_own_code_known.store(true, std::memory_order_release);
  }
  return address >= g_own_code_begin.load(std::memory_order_relaxed) &&
         address < g_own_code_end.load(std::memory_order_relaxed);
}

CallSite call_site(const ThreadBlock& block, uintptr_t site) {
  if (site == 0 || !in_own_code(site)) return {site, site};
  const uintptr_t procedure = block.stack.innermost_procedure();
  return procedure != 0 ? CallSite{procedure + 1, procedure} : CallSite{site, site};
}

void name_object(OwnObject& object) {
  if (object.named.exchange(true, std::memory_order_relaxed)) return;
  runtime().objects.set_name(reinterpret_cast<uintptr_t>(&object.address), object.name);
}

void start_share(ThreadBlock& block, const ThreadBlock* master, const uintptr_t* frames,
                 uint32_t count) {
  end_idle(block);
  if (master == nullptr || master == &block || block.stack.depth() != block.own_base) return;
  block.stack.rebase(frames, count);
  block.own_base = block.stack.depth();
  forget_routines(block);
}

void begin_idle(ThreadBlock& block) {
  if (t_team.idle_open) return;
  t_team.idle = begin_wait(block, own_object(g_idle), EntryKind::omp_idle, ThreadState::spinning,
                           support::ticks());
  t_team.idle_open = true;
}

void end_idle(ThreadBlock& block) {
  if (!t_team.idle_open) return;
  t_team.idle_open = false;
  end_wait(block, runtime().objects, t_team.idle, WaitOutcome::waited, t_team.idle.object,
           support::ticks());
}

Wait begin_team_wait(ThreadBlock& block, uintptr_t object, EntryKind kind, uintptr_t site) {
  const Wait wait = begin_wait(block, object, kind, ThreadState::spinning, support::ticks());
  if (t_team.master) count_post(reinterpret_cast<const void*>(object), kind, site);
  return wait;
}

void lock_granted(ThreadBlock& block, const Wait& wait, uintptr_t site, uint64_t granted) {
  if (granted - wait.started_ticks >= kContendedTicks) {
    end_wait_acquired(block, runtime().objects, wait, site, granted);
    return;
  }
  block.stack.set_role(wait.object, EntryRole::holding);
  block.state.store(wait.previous, std::memory_order_release);
  count_acquisition(block, runtime().objects, wait.object, wait.kind, site, false, 0);
}

}  // namespace quartz::rt::openmp
