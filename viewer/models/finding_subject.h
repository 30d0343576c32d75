// Where a finding's subject lives in the run, so activating the finding can open it: a
// procedure (Procedures), a synchronization object (Locks), a thread of an imbalanced
// routine (Threads: the busiest, the one that set the end) or the thread running for
// most of a starvation (Threads). The program and the profiler have no row of their own.
#pragma once

#include <cstdint>

#include "analysis/diagnosis.h"
#include "analysis/profile_view.h"

namespace quartz::viewer {

struct FindingSubject {
  enum Kind { kNone, kProcedure, kLock, kThread } kind = kNone;
  uint64_t key = 0;  // the procedure's or object's address, or the thread's index
};

FindingSubject subject_of(const analysis::ProfileView& view, const analysis::Finding& finding);

}  // namespace quartz::viewer
