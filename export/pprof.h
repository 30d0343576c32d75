// The run as a pprof profile (github.com/google/pprof, proto/profile.proto), gzipped, for
// `go tool pprof` and the tools that read it.
#pragma once

#include <ostream>

#include "analysis/profile_view.h"
#include "profile/run.h"

namespace quartz::exports {

// One sample per calling context, its stack from the context up to the root. Sample types,
// in nanoseconds: normalized (the default), processor, wait: a context's own normalized
// processor time, processor time, and time spinning or blocked (ProfileView's ContextRow).
// Procedures are functions with their file and declaration line; objects are functions
// named as the report names them.
void write_pprof(std::ostream& out, const profile::Run& run, const analysis::ProfileView& view);

}  // namespace quartz::exports
