// A file read through a read-only mapping, whose pages a reader gives back as it finishes
// with them: a capture of a gigabyte is checked, stored and parsed without ever being
// resident whole (docs/performance.md "Huge runs").
#pragma once

#include <cstddef>
#include <span>
#include <string>

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

}  // namespace quartz::profile
