// The run status `quartz run` reads after the program ends (QUARTZ_STATUS): what became
// of the captures and the trace, so that it can explain a missing or partial capture
// (docs/user-guide.md, "When things go wrong"). What went wrong is also said once on
// stderr ("quartz: ..." on one line).
#pragma once

#include "support/attributes.h"

namespace quartz::rt {

// The files the run status describes.
enum class RunFile { capture, trace };

// Records a written capture in the run status (`final`: the one written at exit).
QUARTZ_NOINSTR void note_capture_written(bool final);
// Says on stderr (once per file and error) that `path` could not be written and what
// is kept instead, and records the error in the run status.
QUARTZ_NOINSTR void note_write_failed(RunFile file, const char* path, int error);

}  // namespace quartz::rt
