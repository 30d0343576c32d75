// Names every address a run refers to (procedures, call-graph ends, objects' first call
// sites, thread start routines) from the executable and libraries on disk, through the
// run's module list, and makes the compiler's copies of a function one procedure
// (compiler_copies.h). Done at import, while the binaries still match the run.
#pragma once

#include "profile/run.h"

namespace quartz::profile {

void symbolize_run(Run& run);

}  // namespace quartz::profile
