#include "overhead/calibration.h"

#include <sys/mman.h>
#include <time.h>

#include <algorithm>

#include "compiler_hooks/patched_entries.h"
#include "runtime/return_stack.h"
#include "runtime/runtime.h"
#include "runtime/trace_events.h"
#include "support/clock.h"
#include "support/mapped_memory.h"
#include "support/thread_cpu.h"

extern "C" void __cyg_profile_func_enter(void*, void*);
extern "C" void __cyg_profile_func_exit(void*, void*);

namespace quartz::sampler {
namespace {

__attribute__((noinline, no_instrument_function)) void calibration_procedure() {}
__attribute__((noinline, no_instrument_function)) void calibration_caller() {}

}  // namespace

// Each calibration is timed by this thread's own CPU clock (support::read_own_clock): what a call
// costs the thread that makes it, not stretched by preemption when the sampler shares a processor
// with the program's threads (by the wall clock, a call beside two busy threads reads twice
// what it does beside one).
double calibrate_hook_pair_ns(const rt::BlockGeometry& geometry) {
  void* memory = support::map_zeroed(rt::ThreadBlock::bytes_for(geometry));
  if (!memory) return 0;
  rt::ThreadBlock* scratch = rt::ThreadBlock::create_in(memory, geometry);
  // Through volatile pointers, as the program reaches them: a real call each time.
  void (*volatile enter)(void*, void*) = &__cyg_profile_func_enter;
  void (*volatile exit)(void*, void*) = &__cyg_profile_func_exit;
  void* caller = reinterpret_cast<void*>(&calibration_caller);
  void* callee = reinterpret_cast<void*>(&calibration_procedure);
  rt::t_local.block = scratch;
  enter(caller, nullptr);
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    constexpr int kPairs = 4000;
    const uint64_t begin = support::read_own_clock();
    for (int i = 0; i < kPairs; ++i) {
      enter(callee, nullptr);
      exit(callee, nullptr);
    }
    const double ns = static_cast<double>(support::read_own_clock() - begin) / kPairs;
    if (ns < best) best = ns;
  }
  exit(caller, nullptr);
  rt::t_local.block = nullptr;
  munmap(memory, rt::ThreadBlock::bytes_for(geometry));
  return best;
}

double calibrate_patched_call_ns(const rt::BlockGeometry& geometry) {
  void (*volatile probe)() = hooks::patched_probe();
  if (probe == nullptr) return 0;
  void* memory = support::map_zeroed(rt::ThreadBlock::bytes_for(geometry));
  if (!memory) return 0;
  rt::ThreadBlock* scratch = rt::ThreadBlock::create_in(memory, geometry);
  rt::t_local.block = scratch;
  rt::t_returns.learn_stack_bounds();  // this thread's returns are taken for the while
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    constexpr int kCalls = 4000;
    const uint64_t begin = support::read_own_clock();
    for (int i = 0; i < kCalls; ++i) probe();
    const double ns = static_cast<double>(support::read_own_clock() - begin) / kCalls;
    if (ns < best) best = ns;
  }
  rt::t_returns.forget_stack();
  rt::t_local.block = nullptr;
  munmap(memory, rt::ThreadBlock::bytes_for(geometry));
  return best;
}

double calibrate_trace_event_ns(const rt::BlockGeometry& geometry) {
  rt::BlockGeometry g = geometry;
  g.trace_capacity = 4096;
  void* memory = support::map_zeroed(rt::ThreadBlock::bytes_for(g));
  if (!memory) return 0;
  rt::ThreadBlock* scratch = rt::ThreadBlock::create_in(memory, g);
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    const uint64_t begin = support::read_own_clock();
    for (uint32_t i = 0; i < g.trace_capacity; ++i) {
      rt::record_event(*scratch, trace::Type::lock_acquire, rt::EntryKind::mutex, i, i, 0,
                       support::ticks());
    }
    const double ns = static_cast<double>(support::read_own_clock() - begin) / g.trace_capacity;
    if (ns < best) best = ns;
    scratch->trace->drain([](const rt::TraceEvent&) {});
  }
  munmap(memory, rt::ThreadBlock::bytes_for(g));
  return best;
}

double calibrate_cpu_read_ns() {
  // Timed by the thread's own CPU clock: what a read costs the thread in processor time,
  // which is what is taken out, and not stretched by preemption on a busy machine.
  double best = 1e9;
  for (int round = 0; round < 5; ++round) {
    constexpr int kReads = 200;
    const uint64_t begin = support::read_own_clock();
    for (int i = 0; i < kReads - 1; ++i) support::read_own_clock();
    best = std::min(best, static_cast<double>(support::read_own_clock() - begin) / kReads);
  }
  return best;
}

}  // namespace quartz::sampler
