// Reports show the program's own procedures: a frame of system code (profile/system_code.h:
// std::vector, std::thread's trampolines, the C library) folds into its nearest caller
// that is not, so its time counts as that caller's own. `--all-frames` shows every frame.
#pragma once

#include <optional>

#include "profile/run.h"

namespace quartz::analysis {

// The run as the program's source reads. In the calling-context tree a system procedure's
// context merges into its parent (its children move up, merging with their new siblings);
// its self time becomes the parent's self, in the parent's own record too (procedure or
// held object: from "on its behalf" to "self"). System procedures leave the procedure
// list and the call graph; a call from one counts as a call from the program's procedure
// above it. A system frame with no caller above it (a thread started inside a system
// library) stays: there is nothing to fold it into. None when no procedure is system code
// (a C program, or std:: left without hooks): the run reads as it is.
std::optional<profile::Run> fold_system_frames(const profile::Run& run);

}  // namespace quartz::analysis
