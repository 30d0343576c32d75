// What overhead control reads of the program and changes in it: its processor time, the
// calls counted on its call edges, and its patched entries (compiler_hooks/entry_sleds.h).
// LiveProgram is the program itself; the budget's and the windows' unit tests give a
// program of their own (fake clocks and counts). Every call comes from the sampler thread,
// the thread registry's attached reader.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/runtime.h"
#include "support/attributes.h"

namespace quartz::sampler {

class ProgramEntries {
 public:
  // Called for each call edge: its caller (0: a thread's root), callee and calls so far.
  using EdgeVisit = void (*)(void* context, uintptr_t caller, uintptr_t callee, uint64_t calls);

  // The program's processor time so far, ns: the process's, less the sampler thread's.
  QUARTZ_NOINSTR virtual double cpu_ns() { return 0; }
  QUARTZ_NOINSTR virtual void visit_edges(EdgeVisit, void*) {}
  // The patched entry of `procedure`, or 0 when it has none.
  QUARTZ_NOINSTR virtual uintptr_t entry_of(uintptr_t) { return 0; }
  // Turns the entries at `sleds` (entry_of's, sorted) on or off.
  QUARTZ_NOINSTR virtual void switch_entries(const uintptr_t*, size_t, bool) {}
  // Turns `procedure`'s entry off for good; false when it has none.
  QUARTZ_NOINSTR virtual bool turn_off(uintptr_t) { return false; }

  // visit_edges with any callable.
  template <class Visit>
  QUARTZ_NOINSTR void for_each_edge(Visit&& visit) {
    visit_edges([](void* context, uintptr_t caller, uintptr_t callee,
                   uint64_t calls) { (*static_cast<Visit*>(context))(caller, callee, calls); },
                &visit);
  }
};

// The program this runtime is in.
class LiveProgram final : public ProgramEntries {
 public:
  QUARTZ_NOINSTR explicit LiveProgram(rt::Runtime& runtime) : runtime_(runtime) {}
  QUARTZ_NOINSTR double cpu_ns() override;
  QUARTZ_NOINSTR void visit_edges(EdgeVisit visit, void* context) override;
  QUARTZ_NOINSTR uintptr_t entry_of(uintptr_t procedure) override;
  QUARTZ_NOINSTR void switch_entries(const uintptr_t* sleds, size_t count, bool on) override;
  QUARTZ_NOINSTR bool turn_off(uintptr_t procedure) override;

 private:
  rt::Runtime& runtime_;
};

}  // namespace quartz::sampler
