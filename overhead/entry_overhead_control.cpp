#include "overhead/entry_overhead_control.h"

#include "overhead/calibration.h"
#include "runtime/return_stack.h"

namespace quartz::sampler {
namespace {

// Windows between two counts of the calls for the windows' reads (OverheadBudget::
// call_share): a pass over every call edge, ~0.3 ms, every 160 ms.
constexpr uint64_t kCallShareWindows = 10;

}  // namespace

double EntryOverheadControl::calibrate_call_ns(const rt::BlockGeometry& geometry) {
  // Patched entries (the default) when their return trampoline is in place, else the
  // compiler's hooks.
  return rt::g_return_trampoline.load(std::memory_order_relaxed) != 0
             ? calibrate_patched_call_ns(geometry)
             : calibrate_hook_pair_ns(geometry);
}

double EntryOverheadControl::calibrate_trace_event_ns(const rt::BlockGeometry& geometry) {
  return sampler::calibrate_trace_event_ns(geometry);
}

double EntryOverheadControl::calibrate_cpu_read_ns() {
  return sampler::calibrate_cpu_read_ns();
}

const UnpatchedProcedure* EntryOverheadControl::start_budget(uint32_t percent, double call_ns,
                                                             uint64_t period_ns,
                                                             uint32_t max_contexts) {
  if (!budget_.configure(program_, percent, call_ns, period_ns)) return nullptr;
  windows_kept_ = budget_.active() && windows_.init(max_contexts);
  return budget_.unpatched().data();
}

void EntryOverheadControl::note_window_read(uint8_t state, uint32_t context,
                                            const ProfileTables& tables) {
  if (state != capture::kBusy || context == kNone) return;
  const ContextNode& leaf = tables.context_node(context);
  const bool procedure = leaf.kind == capture::kProcedure;
  budget_.note_window_read(procedure ? leaf.address : 0);
  if (procedure) windows_.learn(context);
}

void EntryOverheadControl::close_window(ProfileTables& tables, HiddenParts* parts) {
  windows_.close(budget_);
  if (windows_.windows() % kCallShareWindows == 0) budget_.refresh_call_shares();
  windows_.update(tables, budget_);
  *parts = windows_.parts();
}

void EntryOverheadControl::after_snapshot(uint64_t run_ns) {
  budget_.step_trial();
  budget_.decide(run_ns);
}

}  // namespace quartz::sampler
