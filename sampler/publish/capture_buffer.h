// Where the capture writer builds a capture: its own mapped memory or, under `quartz run`,
// the free slot of the shared capture (format/shared_capture.h), which publish() then names
// so that the parent has it however the program ends. Never calls malloc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "format/shared_capture.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class CaptureBuffer {
 public:
  // Reserves the private buffer and maps the region QUARTZ_SHARED_CAPTURE opens, when it
  // was made for this process (writing out what the program this process was before an
  // exec published there, if it is not `output`). False when no buffer could be reserved.
  QUARTZ_NOINSTR bool init(const char* output);

  // Starts a capture: in the shared slot the parent does not hold yet (only in the process
  // `quartz run` started: a forked child builds in its own memory), else privately.
  QUARTZ_NOINSTR void begin();
  // Grows to at least `n` bytes; false when the buffer is too small.
  QUARTZ_NOINSTR bool resize_at_least(size_t n);
  QUARTZ_ALWAYS_INLINE unsigned char* data() { return data_; }
  QUARTZ_ALWAYS_INLINE unsigned char& operator[](size_t i) { return data_[i]; }
  QUARTZ_ALWAYS_INLINE size_t size() const { return size_; }

  // True while a parent shares the region with this process.
  QUARTZ_NOINSTR bool shared() const;
  // The region while a parent shares it with this process, else null.
  QUARTZ_NOINSTR capture::SharedCaptureHeader* shared_region() const {
    return shared() ? shared_ : nullptr;
  }
  // The slot the next capture is built in: the one not published.
  QUARTZ_NOINSTR uint32_t next_slot() const;
  // Names the capture just built as the latest, to be written to `path` if the program
  // ends without writing it. A no-op for a private buffer.
  QUARTZ_NOINSTR void publish(const char* path, uint64_t monotonic_ns);

 private:
  QUARTZ_NOINSTR void write_previous_image(const char* output);

  support::MappedVector<unsigned char> own_;
  capture::SharedCaptureHeader* shared_ = nullptr;
  unsigned char* data_ = nullptr;
  size_t capacity_ = 0;
  size_t size_ = 0;
  uint32_t slot_ = 0;  // the slot being built (shared)
  bool in_slot_ = false;
};

}  // namespace quartz::sampler
