// The runtime's own file writes (captures, traces, messages), made so that they can never
// harm the program: no signal (SIGXFSZ past the file-size limit, SIGPIPE on a pipe whose
// reader left) reaches it, errno is kept, no descriptor stays open behind its back, and
// a special file (a FIFO, a device) is refused rather than opened, so a write never
// blocks. Every function returns 0 or the error of the failed step; none allocates.
// What went wrong is the caller's to say (runtime/run_status.h).
#pragma once

#include <signal.h>

#include <cstddef>

#include "support/attributes.h"

namespace quartz::support {

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

// The text of an error a write returned (an errno or kNotRegularFile), for a message.
QUARTZ_NOINSTR const char* error_text(int error);

// Blocks SIGPIPE and SIGXFSZ in the calling thread while it writes, and afterwards takes
// back the ones its writes raised (the kernel sends both to the writing thread), so that
// neither reaches the program. A signal already pending before is left alone: it is not
// ours. Keeps errno.
class QuietSignals {
 public:
  QUARTZ_NOINSTR QuietSignals();
  QUARTZ_NOINSTR ~QuietSignals();
  QuietSignals(const QuietSignals&) = delete;
  QuietSignals& operator=(const QuietSignals&) = delete;

 private:
  int errno_;
  sigset_t mask_;
  bool pipe_pending_ = false, size_pending_ = false;
};

}  // namespace quartz::support
