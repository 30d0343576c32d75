// Amendments to the capture `quartz run` holds (format/shared_capture.h): a capture too
// big to build at every snapshot (13 MB for a program of 125,000 mutexes) is published
// every second or two, and a program killed between two publications would lose what it
// did since. At each snapshot that publishes nothing, the sampler writes what its tables
// changed since the last amendment (table_changes.h: the records the closed windows
// changed, and the open window attributed as if the run ended now), as amended_* sections
// (format/capture_format.h), and appends them to both slots' logs: whichever capture is
// published when the program dies, its log has every change since it was taken. The
// runtime's counts (calls, acquisitions, call edges) are left as the capture had them: they
// are a pass over every object and edge. Mapped memory, never malloc; sampler thread only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format/shared_capture.h"
#include "runtime/runtime.h"
#include "sampler/attribution.h"
#include "sampler/publish/capture_writer.h"
#include "sampler/table_changes.h"
#include "sampler/tables.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class AmendmentLog {
 public:
  QUARTZ_NOINSTR bool init();

  // Before a capture is taken for `slot`: its log starts again.
  QUARTZ_NOINSTR void restart(capture::SharedCaptureHeader& region, uint32_t slot);
  // A capture just published has every context so far (built from the tables now).
  QUARTZ_NOINSTR void covered(const ProfileTables& tables) {
    contexts_listed_ = tables.context_count();
  }
  // Writes the changes as amended_* sections and appends them to both logs (a log that is
  // full takes no more until it starts again). Returns the bytes written.
  QUARTZ_NOINSTR size_t amend(capture::SharedCaptureHeader& region, const RunInfo& info,
                              const AttributionTotals& totals, const ProfileTables& tables,
                              const TableChanges& changes, rt::Runtime& runtime);

 private:
  support::MappedVector<unsigned char> entry_;
  uint32_t contexts_listed_ = 0;  // contexts every log's capture or amendments have
  bool full_[2] = {false, false};
};

}  // namespace quartz::sampler
