#include "runtime/run_status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

#include "support/safe_file.h"

namespace quartz::rt {
namespace {

// What `quartz run` reads after the program ends (QUARTZ_STATUS): one line, rewritten in
// place over the bytes `quartz run` wrote there, so that a full disk still takes it.
constexpr size_t kStatusBytes = 256;
struct RunStatus {
  char path[512];
  unsigned long long captures;  // captures written (checkpoints and the final one)
  bool final_written;
  int capture_error, trace_error;  // the last failed write of each, 0 if none
  int reported[2];                 // the error last said on stderr, per RunFile
};
constinit RunStatus g_status{};
// Set once the path is in place: the sampler may write before our constructor has run.
std::atomic<bool> g_status_ready{false};

QUARTZ_NOINSTR void write_status() {
  if (!g_status_ready.load(std::memory_order_acquire)) return;
  char line[kStatusBytes];
  memset(line, ' ', sizeof line);
  const int n = snprintf(line, sizeof line,
                         "quartz-status 1 pid=%d captures=%llu final=%d capture_error=%d "
                         "trace_error=%d",
                         getpid(), g_status.captures, g_status.final_written ? 1 : 0,
                         g_status.capture_error, g_status.trace_error);
  if (n > 0 && static_cast<size_t>(n) < sizeof line) line[n] = ' ';
  line[sizeof line - 1] = '\n';
  support::QuietSignals quiet;
  const int fd = open(g_status.path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    ssize_t ignored = pwrite(fd, line, sizeof line, 0);
    (void)ignored;
  }
  close(fd);
}

// Records the runtime's start under `quartz run`, so that it can tell a program that
// ended before any capture from one the runtime never entered. After runtime.cpp's
// constructor (101).
__attribute__((constructor(102), no_instrument_function)) void note_runtime_loaded() {
  const int saved = errno;
  const char* path = getenv("QUARTZ_STATUS");
  if (path && *path && strlen(path) < sizeof g_status.path) {
    memcpy(g_status.path, path, strlen(path) + 1);
    g_status_ready.store(true, std::memory_order_release);
    write_status();
  }
  errno = saved;
}

}  // namespace

void note_capture_written(bool final) {
  ++g_status.captures;
  g_status.final_written = g_status.final_written || final;
  if (final || g_status.captures == 1) write_status();
}

void note_write_failed(RunFile file, const char* path, int error) {
  const auto index = static_cast<size_t>(file);
  const bool capture = file == RunFile::capture;
  (capture ? g_status.capture_error : g_status.trace_error) = error;
  write_status();
  if (g_status.reported[index] == error) return;
  g_status.reported[index] = error;
  const char* kept = !capture                ? "the trace stops here"
                     : g_status.captures > 0 ? "the last capture written (a checkpoint) is kept"
                                             : "no capture is left";
  char number[32] = "";
  if (error > 0) snprintf(number, sizeof number, " (errno %d)", error);
  char line[1024];
  snprintf(line, sizeof line, "quartz: cannot write the %s %s: %s%s; %s\n",
           capture ? "capture" : "trace", path, support::error_text(error), number, kept);
  support::write_message(line);
}

}  // namespace quartz::rt
