// The run as collapsed stacks (`a;b;c N`, one line per calling context), the input of
// flame graph tools (flamegraph.pl, inferno, speedscope).
#pragma once

#include <ostream>

#include "analysis/profile_view.h"

namespace quartz::exports {

// One line per calling context with time of its own: the names from the root down, as the
// report names them, then the context's own normalized processor time in nanoseconds.
void write_collapsed(std::ostream& out, const analysis::ProfileView& view);

}  // namespace quartz::exports
