// Reading capture files (capture_format.h). Every byte is checked: a truncated or corrupt
// file gives a CaptureError naming the file, the offset and what is wrong, never a crash.
// The reader: capture.cpp (the file: header, footer, checksums, the sections' order),
// capture_sections.cpp (a capture's own sections), capture_amendments.cpp (amended_*), and
// capture_items.cpp (the decoders of the items both read).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::profile {

class CaptureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How parse_capture gives back the bytes it has read.
struct ParseOptions {
  // Called with an offset before which the parser needs no byte until its next pass (the
  // file's checksum, then each section's checksum and its items): MappedFile::release_before.
  std::function<void(size_t)> release;
  // Called with an offset before which it needs no byte again: OwnedCaptureBytes::drop_before.
  std::function<void(size_t)> done;
};

// The CRC-32 of `bytes` (capture_format.h's, by zlib's faster code), read in steps, each
// step's end given to `release` (if any) as an offset from `base`, where `bytes` starts in
// what it counts.
uint32_t checksum(std::span<const unsigned char> bytes,
                  const std::function<void(size_t)>& release = {}, size_t base = 0);

// Parses a whole capture held in memory; `name` is used in error messages.
Run parse_capture(std::span<const unsigned char> bytes, const std::string& name,
                  const ParseOptions& options = {});
// A capture file's bytes, read whole (CaptureError when it cannot be).
std::vector<unsigned char> read_capture_bytes(const std::string& path);
// Reads and parses a capture file.
Run read_capture(const std::string& path);
// True when the file starts like a capture (to tell it from a store).
bool looks_like_capture(const std::string& path);

}  // namespace quartz::profile
