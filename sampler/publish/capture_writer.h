// Writes the capture (format/capture_format.h) from the sampler's tables and the
// runtime's counts (runtime/merged_counts.h): to `<path>.tmp`, then renamed over `path`, so a
// reader (or a run killed at any moment) only ever sees a complete file. Builds the file in mapped
// memory (sampler/publish/capture_buffer.h: under `quartz run`, memory the parent shares, where
// every capture built is published); never calls malloc.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/merged_counts.h"
#include "sampler/attribution.h"
#include "sampler/publish/capture_buffer.h"
#include "sampler/run_info.h"
#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

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
