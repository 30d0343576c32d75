#include "runtime/options.h"

#include <cstdlib>
#include <cstring>

#include "support/safe_file.h"

namespace quartz::rt {
namespace {

QUARTZ_NOINSTR void warn(const char* name, const char* value) {
  char line[256];
  size_t n = 0;
  for (const char* part : {"quartz: ignoring ", name, "=", value, " (out of range)\n"}) {
    for (; *part && n + 1 < sizeof(line); ++part) line[n++] = *part;
  }
  line[n] = '\0';
  support::write_message(line);
}

// Reads an unsigned integer variable; keeps `value` when unset or outside [lo, hi].
QUARTZ_NOINSTR void read_uint(const char* name, uint32_t lo, uint32_t hi, uint32_t& value) {
  const char* text = getenv(name);
  if (!text || !*text) return;
  char* end = nullptr;
  const unsigned long parsed = strtoul(text, &end, 10);
  if (*end != '\0' || parsed < lo || parsed > hi) {
    warn(name, text);
    return;
  }
  value = static_cast<uint32_t>(parsed);
}

QUARTZ_NOINSTR bool read_flag(const char* name) {
  const char* text = getenv(name);
  return text && (strcmp(text, "1") == 0 || strcmp(text, "yes") == 0 || strcmp(text, "true") == 0);
}

}  // namespace

void read_options(Options& o) {
  o.disabled = read_flag("QUARTZ_DISABLE");
  o.follow_exec = read_flag("QUARTZ_FOLLOW_EXEC");
  read_uint("QUARTZ_STACK_CAPACITY", 16, 1u << 16, o.geometry.stack_capacity);
  read_uint("QUARTZ_THREAD_EDGES_LOG2", 4, 20, o.geometry.call_edges_log2);
  read_uint("QUARTZ_THREAD_OBJECTS_LOG2", 4, 16, o.geometry.objects_log2);
  read_uint("QUARTZ_OBJECTS_LOG2", 6, 24, o.objects_log2);
  read_uint("QUARTZ_CALL_GRAPH_LOG2", 6, 24, o.call_graph_log2);
  if (const char* path = getenv("QUARTZ_OUTPUT")) strncpy(o.output, path, kMaxPathBytes - 1);
  if (const char* path = getenv("QUARTZ_PARENT_CAPTURE")) {
    strncpy(o.parent_capture, path, kMaxPathBytes - 1);
  }
  read_uint("QUARTZ_PERIOD_US", 50, 1000000, o.period_us);
  o.trace = read_flag("QUARTZ_TRACE") && o.output[0];
  if (o.trace) {
    o.geometry.trace_capacity = 16384;
    read_uint("QUARTZ_TRACE_CAPACITY", 64, 1u << 24, o.geometry.trace_capacity);
    read_uint("QUARTZ_TRACE_CPU_US", 1, 1000000, o.trace_cpu_us);
  }
  if (const char* placement = getenv("QUARTZ_PLACEMENT")) {
    strncpy(o.placement, placement, sizeof(o.placement) - 1);
  }
  read_uint("QUARTZ_CHECKPOINT_MS", 10, 3600000, o.checkpoint_ms);
  read_uint("QUARTZ_BUDGET", 0, 100, o.budget_percent);
  if (const char* procedures = getenv("QUARTZ_PROCEDURES")) {
    strncpy(o.procedures, procedures, sizeof(o.procedures) - 1);
  }
  if (const char* reserve = getenv("QUARTZ_RESERVE")) {
    if (strcmp(reserve, "yes") == 0 || strcmp(reserve, "1") == 0) {
      o.reserve = 1;
    } else if (strcmp(reserve, "no") == 0 || strcmp(reserve, "0") == 0) {
      o.reserve = 0;
    } else if (strcmp(reserve, "auto") != 0) {
      warn("QUARTZ_RESERVE", reserve);
    }
  }
  if (const char* priority = getenv("QUARTZ_SAMPLER_PRIORITY")) {
    if (strcmp(priority, "normal") == 0) {
      o.realtime_sampler = false;
    } else if (strcmp(priority, "realtime") != 0) {
      warn("QUARTZ_SAMPLER_PRIORITY", priority);
    }
  }
  if (const char* baseline = getenv("QUARTZ_BASELINE")) {
    char* comma = nullptr;
    const unsigned long long cpu = strtoull(baseline, &comma, 10);
    char* end = nullptr;
    const unsigned long long elapsed = *comma == ',' ? strtoull(comma + 1, &end, 10) : 0;
    if (end && *end == '\0' && elapsed > 0) {
      o.baseline_cpu_ns = cpu;
      o.baseline_elapsed_ns = elapsed;
    } else {
      warn("QUARTZ_BASELINE", baseline);
    }
  }
  if (const char* cores = getenv("QUARTZ_RESERVED_CORES")) {
    strncpy(o.reserved_cores, cores, sizeof(o.reserved_cores) - 1);
  }
}

}  // namespace quartz::rt
