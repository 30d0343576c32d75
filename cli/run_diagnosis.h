// `quartz run`'s word at the end of the run: how the program ended, what the capture
// covers, why there is none, and how to store one.
#pragma once

#include <cstdint>
#include <string>

#include "cli/capture_rescue.h"
#include "cli/run_options.h"
#include "cli/runtime_status.h"

namespace quartz::cli {

// "exited with status 3", "was killed by signal 9 (Killed)": `status` as waitpid gives it.
std::string describe_end(int status);

// Says what became of the capture and why, from the program's end (`status`, at
// `end_realtime_ns`), the runtime's status and what it published, written to the capture
// path when the runtime wrote none. True when there is a capture to store.
bool explain_capture(const RunOptions& o, int status, uint64_t end_realtime_ns,
                     const StatusFile& status_file, const CaptureRescue& rescue);

// The command that stores the capture: "quartz import --store S CAPTURE".
std::string import_hint(const RunOptions& o);

}  // namespace quartz::cli
