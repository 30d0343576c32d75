#include "support/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace quartz::support {
namespace {

// Takes one of `set`'s pending signals without waiting, by the system call itself:
// sigtimedwait is the runtime's own wrapper (interpose_signals.cpp), which may not have
// found the real function yet when a warning is written at start. Returns the signal, or
// -1 when none is pending.
QUARTZ_NOINSTR int take_pending(const sigset_t* set) {
  const timespec now{0, 0};
  return static_cast<int>(syscall(SYS_rt_sigtimedwait, set, nullptr, &now, _NSIG / 8));
}

// Whether a file may grow to `bytes`: past RLIMIT_FSIZE the write would raise SIGXFSZ
// (taken back above) and leave a part of the file.
QUARTZ_NOINSTR bool within_size_limit(uint64_t bytes) {
  rlimit limit;
  return getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY ||
         bytes <= limit.rlim_cur;
}

QUARTZ_NOINSTR int write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    if (w == 0) return EIO;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

// Opens (creating) a regular file for writing. Never opens anything else: without a
// reader a FIFO would block the open, a device is not a file of ours.
QUARTZ_NOINSTR int open_regular(const char* path, int flags, int* fd) {
  *fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | flags, 0644);
  if (*fd < 0) return errno == ENXIO ? kNotRegularFile : errno;  // ENXIO: a FIFO, no reader
  struct stat st;
  if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(*fd);
    *fd = -1;
    return kNotRegularFile;
  }
  return 0;
}

}  // namespace

QuietSignals::QuietSignals() : errno_(errno) {
  sigset_t quiet;
  sigemptyset(&quiet);
  sigaddset(&quiet, SIGPIPE);
  sigaddset(&quiet, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &quiet, &mask_);
  sigset_t pending;
  sigpending(&pending);
  pipe_pending_ = sigismember(&pending, SIGPIPE) == 1;
  size_pending_ = sigismember(&pending, SIGXFSZ) == 1;
}

QuietSignals::~QuietSignals() {
  sigset_t pending, ours;
  sigpending(&pending);
  sigemptyset(&ours);
  if (!pipe_pending_ && sigismember(&pending, SIGPIPE) == 1) sigaddset(&ours, SIGPIPE);
  if (!size_pending_ && sigismember(&pending, SIGXFSZ) == 1) sigaddset(&ours, SIGXFSZ);
  int taken = 0;
  while (!sigisemptyset(&ours) && (taken = take_pending(&ours)) > 0) {
    sigdelset(&ours, taken);
  }
  pthread_sigmask(SIG_SETMASK, &mask_, nullptr);
  errno = errno_;
}

const char* error_text(int error) {
  switch (error) {
    case kNotRegularFile:
      return "not a regular file";
    case EFBIG:
      return "File too large (past the file-size limit, ulimit -f)";
    case ENOSPC:
      return "No space left on device";
    case EDQUOT:
      return "Disk quota exceeded";
    case EIO:
      return "Input/output error";
    case EROFS:
      return "Read-only file system";
    case EACCES:
      return "Permission denied";
    case EPERM:
      return "Operation not permitted";
    case ENOENT:
      return "No such file or directory";
    case ENOTDIR:
      return "Not a directory";
    case ENAMETOOLONG:
      return "File name too long";
    case EMFILE:
      return "Too many open files";
    default:
      return "error";
  }
}

int replace_file(const char* path, const void* data, size_t n) {
  char temporary[4096];
  if (snprintf(temporary, sizeof temporary, "%s.tmp", path) >= static_cast<int>(sizeof temporary)) {
    return ENAMETOOLONG;
  }
  QuietSignals quiet;
  int fd = -1;
  int error = open_regular(temporary, 0, &fd);
  if (error) return error;
  if (ftruncate(fd, 0) != 0) {
    error = errno;
  } else if (!within_size_limit(n)) {
    error = EFBIG;
  } else {
    error = write_all(fd, data, n);
  }
  if (close(fd) != 0 && !error) error = errno;
  if (!error && rename(temporary, path) != 0) error = errno;
  if (error) unlink(temporary);
  return error;
}

int create_file(const char* path) {
  QuietSignals quiet;
  int fd = -1;
  int error = open_regular(path, 0, &fd);
  if (error) return error;
  if (ftruncate(fd, 0) != 0) error = errno;
  if (close(fd) != 0 && !error) error = errno;
  return error;
}

int append_to_file(const char* path, const void* header, size_t header_bytes, const void* data,
                   size_t n) {
  QuietSignals quiet;
  int fd = -1;
  int error = open_regular(path, O_APPEND, &fd);
  if (error) return error;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    error = errno;
  } else if (!within_size_limit(static_cast<uint64_t>(st.st_size) + header_bytes + n)) {
    error = EFBIG;
  } else if ((error = write_all(fd, header, header_bytes)) != 0 ||
             (error = write_all(fd, data, n)) != 0) {
    if (ftruncate(fd, st.st_size) != 0) {  // best effort: leave no part of this append
    }
  }
  if (close(fd) != 0 && !error) error = errno;
  return error;
}

void write_message(const char* text) {
  QuietSignals quiet;
  write_all(STDERR_FILENO, text, strlen(text));
}

}  // namespace quartz::support
