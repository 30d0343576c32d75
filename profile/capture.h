// Reading capture files (capture_format.h). Every byte is checked: a truncated or corrupt
// file gives a CaptureError naming the file, the offset and what is wrong, never a crash.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::profile {

class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a whole capture held in memory; `name` is used in error messages.
Run parse_capture(const std::vector<unsigned char>& bytes, const std::string& name);
// A capture file's bytes, read whole (CaptureError when it cannot be).
std::vector<unsigned char> read_capture_bytes(const std::string& path);
// Reads and parses a capture file.
Run read_capture(const std::string& path);
// True when the file starts like a capture (to tell it from a store).
bool looks_like_capture(const std::string& path);

}  // namespace quartz::profile
