// A function the compiler copied (gcc's ".constprop.0", ".isra.0", ".part.0" clones, each
// specialised for some of its callers) has an entry of its own per copy, so the runtime
// counts each copy as a procedure; the symbolizer names them alike. To the user they are
// one procedure: this merges them, after symbolizing, into the copy at the lowest address.
#pragma once

#include "profile/run.h"

namespace quartz::profile {

// Copies are procedures with the same function name, file and line (those without a source
// line are left apart: two static functions of one name in one module look alike then).
// Their records are added, their calls and call-graph edges made one; calling contexts and
// threads' routines refer to the one kept.
void merge_compiler_copies(Run& run);

}  // namespace quartz::profile
