// What a capture's run section says besides the sampler's tables: the program, where it
// ran, the sampler's period and cost, the overhead budget's decisions, the trace's
// figures. Filled by the sampler's jobs, written by the capture writer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quartz::sampler {

inline constexpr size_t kMaxProgramPath = 512;

// A procedure whose entry the overhead budget turned off (overhead/).
struct UnpatchedProcedure {
  uintptr_t procedure;
  uint64_t calls;  // counted until then
  uint64_t at_ns;  // into the run
  bool off;        // false: it had no entry to turn off (a hook's, OpenMP's); left counted
  double call_ns;  // what a call cost the program, as a trial measured it; 0: not measured
};

// What the run section says, besides what the tables hold.
struct RunInfo {
  char program[512];
  char arguments[4096];  // separated by '\x1f'
  char host[256];
  char topology[256];
  char reserved_cores[128];
  char app_cores[128];
  char sampler_cores[128];  // where the sampler ran (reserved or shared)
  int pid;
  bool reserve;
  bool cpu_measured;
  uint64_t start_realtime_ns;
  uint64_t start_monotonic_ns;
  uint64_t period_ns;  // asked for
  // What the schedule kept (measure/period.h): the longest period it lengthened to, the
  // snapshots due, those taken late and those lost.
  uint64_t period_longest_ns;
  uint64_t snapshots_due, snapshots_late, snapshots_lost;
  uint64_t walk_ns;              // the snapshots' walks over the threads, by the sampler's clock
  const char* sampler_priority;  // run_keys::kSamplerPriority's values
  uint32_t window_snapshots;
  uint64_t torn_samples;
  uint64_t sampler_cpu_ns;
  uint64_t other_cpu_ns;  // others' processor time on the program's processors
  bool other_cpu_known;
  double hook_pair_ns;
  uint32_t budget_percent;  // 0: no budget
  // The budget's decisions, in the order made (null without a budget), and the figures a
  // capture tells, as of the sampler's last snapshot: read by the capture builder while the
  // sampler goes on (capture_builder.h), the decisions only up to `unpatched`, which are
  // never changed once made.
  const UnpatchedProcedure* decisions;
  uint32_t cost_trials;
  uint32_t unpatched;
  bool windows_known;
  uint64_t entry_windows, window_reads;
  uint64_t checkpoints;
  bool trace;  // a trace file is being written (<output>.trace)
  double trace_event_ns;
  double trace_cpu_read_ns;
  uint64_t trace_events, trace_dropped, trace_bytes;
};

}  // namespace quartz::sampler
