// A traced run (`quartz run --trace`) as Chrome's Trace Event Format (JSON), the timeline
// format of chrome://tracing, Perfetto (ui.perfetto.dev) and speedscope.
#pragma once

#include <ostream>

#include "analysis/profile_view.h"
#include "profile/run.h"
#include "profile/trace_reader.h"

namespace quartz::exports {

// One track per thread (tid: the thread's system id, named as the report names it). On it,
// complete events ("X"), nested: "hold L" while the thread held lock L (split where locks
// were released out of order, so slices nest), inside them its state between
// synchronization events: "work" (not waiting for another thread: running, ready, or in
// the kernel), "wait O" (blocked or spinning on object O: a lock, condition, barrier,
// semaphore, or "join T"), "spin O" (a spin region). A process counter ("C") "processors
// busy": the sum over threads of each thread's CPU clock rate between two readings of it,
// outside its spinning (DESIGN.md §2: spinning is not busy). Times in microseconds since
// the run started. Throws profile::TraceError for a damaged trace.
void write_chrome_trace(std::ostream& out, const profile::Run& run,
                        const analysis::ProfileView& view, profile::TraceReader& trace);

}  // namespace quartz::exports
