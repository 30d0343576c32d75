// The decoders of capture sections' items (capture_format.h), one for each kind of item,
// shared by a capture's own sections (capture_sections.cpp) and the amendments logged after
// them (capture_amendments.cpp): those only decide where an item goes. Internal to the
// capture reader.
#pragma once

#include <cstdint>

#include "profile/capture_cursor.h"
#include "profile/run.h"

namespace quartz::profile {

// How a section lays out its items. A capture's own sections carry every field, and full
// records of the run's R1 runnable bins. Amendments carry none of the runtime's counts
// (calls, acquisitions, exact waits: they stay as the capture had them), but a thread's
// starvation and a context's one-busy seconds, which a capture has in sections of their
// own; their full records have R1' bins of their own, folded into the run's R1.
struct ItemLayout {
  bool amendment = false;
  uint32_t runnable_bins = 0;  // of the section's full records
};

// A capture's own sections' layout for `run`.
inline ItemLayout captured(const Run& run) {
  return {false, run.runnable_bins};
}

// A full record of `runnable_bins` runnable-thread bins, fitted to the run's R1: bins from
// R1 - 1 up are "k >= R1 - 1".
FullRecord read_record(Cursor& c, const Run& run, uint32_t runnable_bins);

// A thread's fields after its index.
void read_thread(Cursor& c, const Run& run, const ItemLayout& layout, ThreadInfo& t);

// An object's kind, name and first site (after its address: every object item starts so).
void read_object_identity(Cursor& c, ObjectInfo& o);
// Its counts: acquisitions, contended, posts, exact wait (a capture's, not an amendment's).
void read_object_counts(Cursor& c, ObjectInfo& o);
// An object's fields after its address.
void read_object(Cursor& c, const Run& run, const ItemLayout& layout, ObjectInfo& o);

// A procedure's fields after its address.
void read_procedure(Cursor& c, const Run& run, const ItemLayout& layout, ProcedureInfo& p);

// A context's item, whole: a capture's lists the next context; an amendment's the next one
// or one listed before (the same context: its parent, address and kind), whose record it
// rewrites. Its time by processors busy goes into the run's columns.
void read_context(Cursor& c, Run& run, const ItemLayout& layout);

// The run section's (key, value) pairs, over any the run has.
void read_run_keys(Cursor& c, Run& run);

}  // namespace quartz::profile
