// Writes the capture (format/capture_format.h) from the sampler's tables and the
// runtime's counts (runtime/merged_counts.h): to `<path>.tmp`, then renamed over `path`, so a
// reader (or a run killed at any moment) only ever sees a complete file. Builds the file in mapped
// memory (sampler/capture_buffer.h: under `quartz run`, memory the parent shares, where every
// capture built is published); never calls malloc.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/merged_counts.h"
#include "sampler/attribution.h"
#include "sampler/capture_buffer.h"
#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

inline constexpr size_t kMaxProgramPath = 512;

// What the run section says, besides what the tables hold.
class OverheadBudget;

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
  uint64_t other_cpu_ns;  // others' processor time on the program's processors
  bool other_cpu_known;
  double hook_pair_ns;
  uint32_t budget_percent;       // 0: no budget
  const OverheadBudget* budget;  // its decisions; null without a budget
  // The figures of the budget a capture tells, as of the sampler's last snapshot: read by
  // the capture builder while the sampler goes on (capture_builder.h), the budget's
  // decisions only up to `unpatched`, which are never changed once made.
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

// Room for the run section's longer texts.
struct RunText {
  char unpatched[64 * 1024];
};

// The modules section as last written, and the loader's counts of objects loaded and
// unloaded then (capture_writer.cpp, write_modules).
struct ModuleCache {
  unsigned long long adds = 0, subs = 0;
  size_t bytes = 0;  // 0: none kept
  unsigned char section[16 * 1024];
};

// A build given up (CaptureWriter::write): no file written.
inline constexpr int kBuildGivenUp = -1;

class CaptureWriter {
 public:
  QUARTZ_NOINSTR bool init(const rt::Runtime& runtime);
  // A build checks `give_up` (when given) every 64 threads, objects, procedures, contexts
  // or call edges, and stops once it is set.
  //
  // Writes everything sampled so far to the runtime's output path. `final` marks the run as
  // ended. Returns 0, or why the previous file was left in place: an errno from writing,
  // or kBuildGivenUp.
  QUARTZ_NOINSTR int write(bool final, const RunInfo& info, const AttributionTotals& totals,
                           ProfileTables& tables, rt::Runtime& runtime,
                           const std::atomic<bool>* give_up = nullptr);
  // Gives `quartz run` everything sampled so far, without writing a file and unsealed
  // (capture::seal_capture: whoever writes it out seals it); false when no parent shares
  // memory with this process.
  QUARTZ_NOINSTR bool publish(const RunInfo& info, const AttributionTotals& totals,
                              ProfileTables& tables, rt::Runtime& runtime,
                              const std::atomic<bool>* give_up = nullptr);
  QUARTZ_NOINSTR bool shared() const { return bytes_.shared(); }
  // The shared region and the slot the next capture goes to (CaptureBuffer), for the
  // amendment log.
  QUARTZ_NOINSTR capture::SharedCaptureHeader* shared_region() const {
    return bytes_.shared_region();
  }
  QUARTZ_NOINSTR uint32_t next_slot() const { return bytes_.next_slot(); }
  QUARTZ_NOINSTR size_t built_bytes() const { return bytes_.size(); }  // the last capture built

 private:
  QUARTZ_NOINSTR bool build(bool final, bool seal, const RunInfo& info,
                            const AttributionTotals& totals, ProfileTables& tables,
                            rt::Runtime& runtime, const std::atomic<bool>* give_up);

  CaptureBuffer bytes_;
  rt::MergedCounts counts_;
  // The build that last listed each registered object (by its order in the registry).
  support::MappedVector<uint32_t> listed_;
  uint32_t builds_ = 0;
  char program_[kMaxProgramPath] = {};
  ModuleCache modules_;
  RunText run_text_;
};

}  // namespace quartz::sampler
