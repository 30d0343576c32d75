// The runtime's own file writes (captures, traces, messages), made so that they can never
// harm the program: no signal (SIGXFSZ past the file-size limit, SIGPIPE on a pipe whose
// reader left) reaches it, errno is kept, no descriptor stays open behind its back, and
// a special file (a FIFO, a device) is refused rather than opened, so a write never
// blocks. Every function returns 0 or the error of the failed step; none allocates.
//
// What went wrong is said once on stderr ("quartz: ..." on one line) and, under
// `quartz run`, in the run's status file (QUARTZ_STATUS), which `quartz run` reads to
// explain a missing or partial capture (docs/user-guide.md, "When things go wrong").
#pragma once

#include <cstddef>

#include "runtime/attributes.h"

namespace quartz::rt {

// Error code of a path that exists but is not a regular file (no errno says it).
inline constexpr int kNotRegularFile = -1;

// Writes `data` to `<path>.tmp` and renames it over `path`: a reader sees the old file or
// the new one, never a part. A file that would pass the file-size limit is not written.
QUARTZ_NOINSTR int replace_file(const char* path, const void* data, size_t n);

// Appends `header` then `data` to `path` (created empty by `create_file`), whole or not at
// all: a failed append is cut back off, so the file stays a sequence of complete appends.
QUARTZ_NOINSTR int create_file(const char* path);
QUARTZ_NOINSTR int append_to_file(const char* path, const void* header, size_t header_bytes,
                                  const void* data, size_t n);

// Writes `text` to stderr; a closed or broken stderr loses it, silently.
QUARTZ_NOINSTR void write_message(const char* text);

// The files the run status describes.
enum class RunFile { capture, trace };

// Records a written capture in the run status (`final`: the one written at exit).
QUARTZ_NOINSTR void note_capture_written(bool final);
// Says on stderr (once per file and error) that `path` could not be written and what
// is kept instead, and records the error in the run status.
QUARTZ_NOINSTR void note_write_failed(RunFile file, const char* path, int error);

}  // namespace quartz::rt
