// Samples taken while the overhead budget has entries turned off (overhead/): their
// contexts may hide the procedures whose entries are off, and the entry windows tell where
// under each context read the threads really were.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

// Where a sample goes that was taken while the overhead budget had entries turned off
// (overhead/entry_windows.h): its context read may hide procedures, and windows with the
// entries on found which contexts under it the thread was in, how often.
struct HiddenPart {
  uint32_t read;     // the context a snapshot reads with the entries off
  uint32_t context;  // one the windows found under it
  double weight;     // its share of `read`'s samples
};
struct HiddenParts {
  const HiddenPart* parts = nullptr;  // sorted by read
  size_t count = 0;
  // The parts of `read`; *n = 0 (null) when the windows found nothing hidden under it.
  QUARTZ_NOINSTR const HiddenPart* of(uint32_t read, uint32_t* n) const;
};

// While a trial has `hidden`'s entry off (OverheadBudget::trial_hides), a busy thread read
// in context `read` may be in `hidden` called from there, its time going to the caller
// (which can then read several times its share). The thread's context when last seen with
// the entry on (`seen`) stands for it if it lies under `read` through `hidden`: a draw from
// where the thread was under `read` a few ms before, so that over a trial the callee keeps
// its share. Else `read`.
QUARTZ_NOINSTR uint32_t seen_below(ProfileTables& tables, uint32_t read, uint32_t seen,
                                   uintptr_t hidden);

}  // namespace quartz::sampler
