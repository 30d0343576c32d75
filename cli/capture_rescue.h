// How `quartz run` keeps the capture of a program that ended without writing it (a fatal
// signal, SIGKILL, _exit, abort): it makes memory (a memfd laid out as
// format/shared_capture.h says) that the program's runtime publishes each capture into, and
// writes the last one published when the program has ended.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "format/shared_capture.h"

namespace quartz::cli {

class CaptureRescue {
 public:
  // Makes the region; if that fails the run goes on without it (active() is false).
  CaptureRescue();
  ~CaptureRescue();
  CaptureRescue(const CaptureRescue&) = delete;
  CaptureRescue& operator=(const CaptureRescue&) = delete;

  bool active() const { return header_ != nullptr; }
  // The path the runtime opens it by (QUARTZ_SHARED_CAPTURE).
  std::string path() const;
  // In the forked child, before its exec: the region is for this process alone.
  // Async-signal-safe.
  void claim_for_this_process() const;

  // The last capture the program published, once it has ended, with the amendments logged
  // since moved in (capture::take_amendments, into the region: asked again, the same).
  struct Published {
    std::string path;     // where the runtime was writing it
    unsigned char* data;  // unsealed (capture::seal_capture)
    size_t bytes;
  };
  std::optional<Published> latest() const;

 private:
  int fd_ = -1;
  capture::SharedCaptureHeader* header_ = nullptr;
};

// Writes `capture` to `path` (through `<path>.tmp`, as the runtime does), sealed: the
// runtime leaves that to us. False, with the reason, when it cannot.
bool write_published(const CaptureRescue::Published& capture, const std::string& path,
                     std::string* error);

// With --follow-exec, the program running when the process ended may be one an exec
// started: what it last published goes to its own capture (`<output>.exec-...`), unless it
// wrote a final one.
void write_unfinished_followed_capture(const std::string& output, const CaptureRescue& rescue);

}  // namespace quartz::cli
