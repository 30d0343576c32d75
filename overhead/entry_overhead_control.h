// Overhead control of patched entries (sampler/overhead_control.h): the calibrations, the
// overhead budget (overhead_budget.h) and its windows (entry_windows.h) over the program
// itself (LiveProgram). The composition root, libquartz/, makes one and hands it to the
// sampler.
#pragma once

#include <cstdint>

#include "overhead/entry_windows.h"
#include "overhead/overhead_budget.h"
#include "overhead/program_entries.h"
#include "runtime/runtime.h"
#include "sampler/overhead_control.h"

namespace quartz::sampler {

class EntryOverheadControl final : public OverheadControl {
 public:
  QUARTZ_NOINSTR explicit EntryOverheadControl(rt::Runtime& runtime) : program_(runtime) {}

  QUARTZ_NOINSTR double calibrate_call_ns(const rt::BlockGeometry& geometry) override;
  QUARTZ_NOINSTR double calibrate_trace_event_ns(const rt::BlockGeometry& geometry) override;
  QUARTZ_NOINSTR double calibrate_cpu_read_ns() override;

  QUARTZ_NOINSTR const UnpatchedProcedure* start_budget(uint32_t percent, double call_ns,
                                                        uint64_t period_ns,
                                                        uint32_t max_contexts) override;
  QUARTZ_NOINSTR bool counting() const override { return budget_.active(); }
  QUARTZ_NOINSTR bool keeps_windows() const override { return windows_kept_; }

  QUARTZ_NOINSTR bool window_due(uint64_t snapshot) const override {
    return windows_.due(budget_, snapshot);
  }
  QUARTZ_NOINSTR void open_window() override { windows_.open(budget_); }
  QUARTZ_NOINSTR void note_window_read(uint8_t state, uint32_t context,
                                       const ProfileTables& tables) override;
  QUARTZ_NOINSTR void close_window(ProfileTables& tables, HiddenParts* parts) override;
  QUARTZ_NOINSTR bool entries_off() const override { return windows_.entries_off(budget_); }
  QUARTZ_NOINSTR uintptr_t trial_hides() const override { return budget_.trial_hides(); }
  QUARTZ_NOINSTR void note_busy_sample(uintptr_t procedure, uint64_t duration_ns) override {
    budget_.note_sample(procedure, duration_ns);
  }
  QUARTZ_NOINSTR void after_snapshot(uint64_t run_ns) override;
  QUARTZ_NOINSTR void stop() override { budget_.stop_trial(); }

  QUARTZ_NOINSTR uint32_t trials() const override { return budget_.trials(); }
  QUARTZ_NOINSTR uint32_t decisions() const override {
    return static_cast<uint32_t>(budget_.unpatched().size());
  }
  QUARTZ_NOINSTR uint64_t windows() const override { return windows_.windows(); }
  QUARTZ_NOINSTR uint64_t window_reads() const override { return windows_.reads(); }

 private:
  LiveProgram program_;
  OverheadBudget budget_;
  EntryWindows windows_;  // on the procedures the budget turned off
  bool windows_kept_ = false;
};

}  // namespace quartz::sampler
