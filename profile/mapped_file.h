// A capture's bytes in mappings whose pages a reader gives back as it finishes with them
// (a file's, read-only; or memory of its own, for a capture read from the store): a capture
// of a gigabyte is checked, stored and parsed without ever being resident whole beside the
// run it parses into (docs/performance.md "Huge runs").
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "profile/capture.h"

namespace quartz::profile {

class MappedFile {
 public:
  // Maps the regular file at `path`; CaptureError when it cannot be (a pipe, a directory).
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const unsigned char> bytes() const { return {data_, size_}; }
  // Gives back the whole pages before `offset`: read again, they come from the page cache.
  void release_before(size_t offset) const;

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

// A capture's bytes: mapped when `path` is a regular file, so that a reader gives its pages
// back as it goes (the capture is never resident whole beside the run it parses into); read
// whole when it is not (a pipe). CaptureError when it cannot be read.
class CaptureBytes {
 public:
  explicit CaptureBytes(const std::string& path);

  std::span<const unsigned char> bytes() const;
  // parse_capture's options that give the mapped pages back as it reads them.
  ParseOptions giving_back() const;

 private:
  std::optional<MappedFile> mapped_;
  std::vector<unsigned char> read_;
};

// A capture's bytes in memory of their own (an anonymous mapping, not the heap), whose
// pages the parser drops for good as it finishes with them: a capture read from the store's
// chunks is parsed without staying resident whole beside the run it parses into.
class OwnedCaptureBytes {
 public:
  explicit OwnedCaptureBytes(size_t size);  // std::bad_alloc when it cannot be mapped
  ~OwnedCaptureBytes();
  OwnedCaptureBytes(const OwnedCaptureBytes&) = delete;
  OwnedCaptureBytes& operator=(const OwnedCaptureBytes&) = delete;

  std::span<unsigned char> bytes() { return {data_, size_}; }
  // parse_capture's options that drop the pages it is done with.
  ParseOptions dropping();

 private:
  void drop_before(size_t offset);

  unsigned char* data_ = nullptr;
  size_t size_ = 0;
  size_t dropped_ = 0;  // the pages before it are gone
};

}  // namespace quartz::profile
