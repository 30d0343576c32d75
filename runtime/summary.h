// What the runtime saw, written at exit when QUARTZ_SUMMARY names a file ("-" for
// stderr): threads, synchronization objects, procedures and call edges with their
// counts. A debugging aid and the oracle of the runtime's end-to-end tests; the profile
// itself is the capture written by the sampler.
//
// Format: one record per line, `kind key=value ...`, values without spaces; the first
// line is `quartz-summary 1`.
#pragma once

#include "runtime/attributes.h"

namespace quartz::rt {
struct Runtime;
QUARTZ_NOINSTR void write_summary(Runtime& runtime, const char* path);
}  // namespace quartz::rt
