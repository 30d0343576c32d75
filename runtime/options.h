// Runtime options, read once from QUARTZ_* environment variables at start-up
// (`quartz run` sets them from its flags). Every option is documented in
// docs/user-guide.md; out-of-range values fall back to the default with a warning.
#pragma once

#include <cstdint>

#include "runtime/thread_block.h"
#include "support/attributes.h"

namespace quartz::rt {

inline constexpr uint32_t kMaxPathBytes = 512;

struct Options {
  bool disabled = false;          // QUARTZ_DISABLE=1: every hook and wrapper passes through
  bool follow_exec = false;       // QUARTZ_FOLLOW_EXEC=1: programs this one execs are profiled
  BlockGeometry geometry{};       // QUARTZ_STACK_CAPACITY, QUARTZ_THREAD_EDGES_LOG2, ...
  uint32_t objects_log2 = 14;     // QUARTZ_OBJECTS_LOG2: process-wide object records
  uint32_t call_graph_log2 = 16;  // QUARTZ_CALL_GRAPH_LOG2: process-wide call edges

  // Sampling (sampler/): on when QUARTZ_OUTPUT names the capture file to write.
  char output[kMaxPathBytes] = {};  // QUARTZ_OUTPUT
  // QUARTZ_PARENT_CAPTURE (set by the runtime itself when following execs): the capture of
  // the profiled program that started this one; its own capture is then named after it.
  char parent_capture[kMaxPathBytes] = {};
  // QUARTZ_PERIOD_US: time between snapshots; 0 (the default) lets the sampler choose:
  // 1 ms on a reserved core, 2 ms when sharing the processors (docs/performance.md).
  uint32_t period_us = 0;
  uint32_t checkpoint_ms = 1000;  // QUARTZ_CHECKPOINT_MS: capture rewritten this often
  int reserve = -1;               // QUARTZ_RESERVE: -1 auto (>= 8 cores), 0 no, 1 yes
  char reserved_cores[128] = {};  // QUARTZ_RESERVED_CORES: e.g. "7" or "7,71" (default: last core)
  // QUARTZ_SAMPLER_PRIORITY: "realtime" (the default: asked for, kept when permitted) or
  // "normal" (sampler/measure/sampler.cpp).
  bool realtime_sampler = true;
  // QUARTZ_TRACE=1 (with QUARTZ_OUTPUT): record synchronization events for `quartz predict`
  // in <output>.trace; QUARTZ_TRACE_CAPACITY sets geometry.trace_capacity (events queued
  // per thread between two drains; default 16384).
  bool trace = false;
  // QUARTZ_TRACE_CPU_US: a thread reads its CPU clock at an event at most this often.
  uint32_t trace_cpu_us = 50;

  // QUARTZ_BUDGET: patched entries may cost this percent of the program's own processor
  // time; past it the costliest are turned off (overhead/overhead_budget.h). 0: no budget.
  uint32_t budget_percent = 5;
  // QUARTZ_PROCEDURES: comma-separated glob patterns; only the patched entries of functions
  // whose symbol matches one are turned on (empty: all).
  char procedures[1024] = {};

  // QUARTZ_PLACEMENT: threads pinned to cores, "0,1|2,worker" (groups of thread indices or
  // names, one core each, in the order of the allowed cores; "*" for every other thread).
  char placement[1024] = {};

  // QUARTZ_BASELINE "<cpu_ns>,<elapsed_ns>": what one run of the program without the
  // profiler took (`quartz run --baseline` measures it and sets this); written into the
  // capture for `quartz report` and `quartz predict`. 0: not measured.
  uint64_t baseline_cpu_ns = 0;
  uint64_t baseline_elapsed_ns = 0;
};

// Reads the environment. Never allocates; warnings go to stderr with write(2).
QUARTZ_NOINSTR void read_options(Options& options);

}  // namespace quartz::rt
