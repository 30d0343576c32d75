// `quartz run`'s side of the shared capture (format/shared_capture.h): memory the program's
// runtime publishes each capture into, from which `quartz run` writes the run's capture
// when the program ended without writing it (a fatal signal, SIGKILL, _exit, abort).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "format/shared_capture.h"

namespace quartz::cli {

class SharedCapture {
 public:
  // Makes the region; if that fails the run goes on without it (active() is false).
  SharedCapture();
  ~SharedCapture();
  SharedCapture(const SharedCapture&) = delete;
  SharedCapture& operator=(const SharedCapture&) = delete;

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

}  // namespace quartz::cli
