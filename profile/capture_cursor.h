// Reading one capture section's payload (capture_format.h): every read is bounds-checked,
// and every failure is a CaptureError naming the file, the offset and the section. Internal
// to the capture reader (capture.cpp, capture_items.h).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "profile/capture.h"

namespace quartz::profile {

// The section's name in messages ("amended threads"); "unknown" past the known types.
const char* section_name(uint32_t type);

class Cursor {
 public:
  // `size` bytes of payload at `data`, which start at offset `base` of the file `name`.
  Cursor(const unsigned char* data, size_t size, size_t base, const std::string& name,
         const char* section, const ParseOptions& options)
      : data_(data), size_(size), base_(base), name_(name), section_(section), options_(options) {}

  // Bytes before the current position are read (ParseOptions::release, done).
  void read_so_far() const {
    if (options_.release) options_.release(base_ + at_);
    if (options_.done) options_.done(base_ + at_);
  }

  // Reports the current position: where missing bytes would have started.
  [[noreturn]] void fail(const std::string& what) const { fail_at(at_, what); }
  // Reports a position in the payload: where a bad value or item starts.
  [[noreturn]] void fail_at(size_t at, const std::string& what) const;

  size_t position() const { return at_; }
  void need(size_t n) const {
    if (n > size_ - at_) fail("truncated");
  }
  uint32_t u32() { return value<uint32_t>(); }
  int32_t i32() { return value<int32_t>(); }
  uint64_t u64() { return value<uint64_t>(); }
  double f64() {
    const size_t at = at_;
    const double v = value<double>();
    if (!std::isfinite(v)) fail_at(at, "a value that is not a finite number");
    return v;
  }
  std::string str() {
    const uint32_t n = u32();
    need(n);
    std::string s(reinterpret_cast<const char*>(data_ + at_), n);
    at_ += n;
    return s;
  }
  std::vector<double> f64s(size_t n) {
    need(n * sizeof(double));
    std::vector<double> v(n);
    for (double& x : v) x = f64();
    return v;
  }
  // An item count, checked against what the remaining bytes can hold.
  uint32_t count(size_t min_item_bytes) {
    const size_t at = at_;
    const uint32_t n = u32();
    if (min_item_bytes && n > (size_ - at_) / min_item_bytes) {
      fail_at(at, "an item count larger than the section");
    }
    return n;
  }
  void expect_end() const {
    if (at_ != size_) fail("unexpected bytes after the last item");
  }

 private:
  template <typename T>
  T value() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, data_ + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }

  const unsigned char* data_;
  size_t size_;
  size_t at_ = 0;
  size_t base_;
  const std::string& name_;
  const char* section_;
  const ParseOptions& options_;
};

}  // namespace quartz::profile
