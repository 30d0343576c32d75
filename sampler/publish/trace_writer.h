// Writes the trace file (format/trace_format.h) as the sampler drains the threads' event
// queues: records gather in a chunk in mapped memory, which is appended to the file when
// large enough, at each checkpoint and at the end, so a killed run leaves every chunk but
// the one being written. Never calls malloc. The file is opened for each append only
// (support/safe_file.h), so the program never sees its descriptor; after a failed append
// the trace stops, keeping the chunks before it.
#pragma once

#include <cstdint>

#include "runtime/thread_block.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class TraceWriter {
 public:
  // Creates `<capture_path>.trace`. Times are written in ns since `start_ticks`, the run's
  // start. False when the file or the memory is not available.
  QUARTZ_NOINSTR bool open(const char* capture_path, uint64_t start_ticks, double ns_per_tick);
  QUARTZ_NOINSTR bool is_open() const { return open_; }

  // Moves the thread's queued events (and news of events it dropped) into the chunk.
  QUARTZ_NOINSTR void drain(uint32_t thread_index, rt::ThreadBlock& block);
  // The sampler's reading of a thread: its CPU clock, run-queue time (~0ull: not read) and
  // calling context (~0u: none) at `at_ns` since the run's start.
  QUARTZ_NOINSTR void sample(uint32_t thread_index, uint64_t at_ns, uint64_t cpu_ns,
                             uint64_t runqueue_ns, uint32_t context);
  // Appends the chunk to the file if it has grown past `threshold` bytes.
  QUARTZ_NOINSTR void flush(size_t threshold = 0);
  // Flushes, writes the end chunk and closes.
  QUARTZ_NOINSTR void finish();

  QUARTZ_NOINSTR uint64_t events() const { return events_; }
  QUARTZ_NOINSTR uint64_t dropped() const { return dropped_; }
  QUARTZ_NOINSTR uint64_t bytes() const { return bytes_written_; }

 private:
  struct PerThread {
    uint32_t last_hooks;  // profile-stack sequence at its last event
    uint32_t seen;        // last_hooks is valid
    uint64_t dropped;     // its queue's drop count when last read
  };

  QUARTZ_NOINSTR void enter_thread(uint32_t thread_index);
  QUARTZ_NOINSTR void close_thread();
  QUARTZ_NOINSTR void byte(uint8_t v);
  QUARTZ_NOINSTR void varint(uint64_t v);
  QUARTZ_NOINSTR void time(uint64_t at_ns);
  QUARTZ_NOINSTR void write_chunk(uint32_t type);
  // Appends a header and its records as one; false (and the trace stopped) on failure.
  QUARTZ_NOINSTR bool append(const void* header, size_t header_bytes, const void* data, size_t n);

  char path_[4096] = {};
  bool open_ = false;
  uint64_t start_ticks_ = 0;
  double ns_per_tick_ = 1;
  support::MappedVector<unsigned char> chunk_;
  support::MappedVector<PerThread> threads_;
  uint32_t current_thread_ = ~0u;  // the thread block open in the chunk
  size_t count_at_ = 0;            // where its record count goes
  uint32_t count_ = 0;
  uint64_t last_ns_ = 0;
  uint64_t events_ = 0, dropped_ = 0, bytes_written_ = 0;
  uint32_t thread_count_ = 0;
};

}  // namespace quartz::sampler
