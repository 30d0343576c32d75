#include "overhead/program_entries.h"

#include <time.h>

#include "compiler_hooks/entry_sleds.h"
#include "runtime/merged_counts.h"

namespace quartz::sampler {
namespace {

QUARTZ_NOINSTR uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

double LiveProgram::cpu_ns() {
  return static_cast<double>(clock_ns(CLOCK_PROCESS_CPUTIME_ID)) -
         static_cast<double>(clock_ns(CLOCK_THREAD_CPUTIME_ID));
}

void LiveProgram::visit_edges(EdgeVisit visit, void* context) {
  rt::MergedCounts::for_each_edge(runtime_,
                                  [&](uintptr_t caller, uintptr_t callee, uint64_t calls) {
                                    visit(context, caller, callee, calls);
                                  });
}

uintptr_t LiveProgram::entry_of(uintptr_t procedure) {
  return hooks::entry_of(procedure);
}

void LiveProgram::switch_entries(const uintptr_t* sleds, size_t count, bool on) {
  hooks::switch_entries(sleds, count, on);
}

bool LiveProgram::turn_off(uintptr_t procedure) {
  return hooks::unpatch_entry(procedure);
}

}  // namespace quartz::sampler
