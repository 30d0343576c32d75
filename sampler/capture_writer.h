// Writes the capture (format/capture_format.h) from the sampler's tables and the
// runtime's counts (runtime/merged_counts.h): to `<path>.tmp`, then renamed over `path`, so a
// reader (or a run killed at any moment) only ever sees a complete file. Builds the file in mapped
// memory; never calls malloc.
#pragma once

#include <cstdint>

#include "runtime/attributes.h"
#include "runtime/mapped_vector.h"
#include "runtime/merged_counts.h"
#include "sampler/attribution.h"
#include "sampler/tables.h"

namespace quartz::sampler {

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
  uint64_t period_ns;
  uint32_t window_snapshots;
  uint64_t torn_samples;
  uint64_t sampler_cpu_ns;
  double hook_pair_ns;
  uint64_t checkpoints;
  bool trace;  // a trace file is being written (<output>.trace)
  double trace_event_ns;
  double trace_cpu_read_ns;
  uint64_t trace_events, trace_dropped, trace_bytes;
};

class CaptureWriter {
 public:
  QUARTZ_NOINSTR bool init(const rt::Runtime& runtime);
  // Writes everything sampled so far. `final` marks the run as ended. Returns false (and
  // leaves the previous file in place) when the file cannot be written.
  QUARTZ_NOINSTR bool write(const char* path, bool final, const RunInfo& info,
                            const AttributionTotals& totals, ProfileTables& tables,
                            rt::Runtime& runtime);

 private:
  rt::MappedVector<unsigned char> bytes_;
  rt::MergedCounts counts_;
};

}  // namespace quartz::sampler
