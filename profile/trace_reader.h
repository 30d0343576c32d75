// Reading trace files (trace_format.h) a chunk at a time, so that a trace of any length is
// read in memory bounded by its largest chunk. Every byte is checked: a truncated or
// corrupt trace gives a TraceError naming the trace, the offset and what is wrong.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "format/trace_format.h"

namespace quartz::profile {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where trace bytes come from: a file, or a run's trace in the store (Store::open_trace).
class TraceSource {
 public:
  virtual ~TraceSource() = default;
  // Reads up to `n` bytes; fewer only at the end. Throws (StoreError, ...) when the bytes
  // there cannot be read, rather than end early.
  virtual size_t read(void* out, size_t n) = 0;
  virtual const std::string& name() const = 0;
};

// Opens a trace file; throws TraceError if it cannot be read.
std::unique_ptr<TraceSource> open_trace_file(const std::string& path);
// Trace bytes already in memory (tests, small traces).
std::unique_ptr<TraceSource> trace_from_bytes(std::vector<unsigned char> bytes, std::string name);

// One record of one thread, decoded: a sync event, a sample or a drop report.
struct TraceRecord {
  uint32_t thread = 0;
  trace::Type type{};
  uint8_t kind = 0;
  uint64_t time_ns = 0;  // since the run's start
  uint64_t object = 0;
  uint32_t sequence = 0;
  uint32_t aux = 0;
  uint64_t hooks = 0;   // sync events: hook events since the thread's previous one
  uint64_t cpu_ns = 0;  // samples: the thread's CPU clock
  bool has_runqueue = false;
  uint64_t runqueue_ns = 0;  // samples read from schedstat
  bool has_context = false;
  uint32_t context = 0;  // samples: the capture's calling context
  uint64_t dropped = 0;  // drop reports
};

struct TraceTotals {
  bool complete = false;                          // the end chunk was read
  uint64_t events = 0, dropped = 0, threads = 0;  // as the end chunk says
  uint64_t records = 0, bytes = 0;                // as read
};

class TraceReader {
 public:
  // Checks the file header; throws TraceError.
  explicit TraceReader(std::unique_ptr<TraceSource> source);

  // The next chunk's records, in order (each thread's records in time order); false at
  // the end of the trace. A torn last chunk (a killed run) ends the trace early, with
  // totals().complete false; any other damage throws TraceError.
  bool next_chunk(std::vector<TraceRecord>& out);
  const TraceTotals& totals() const { return totals_; }
  const std::string& name() const { return source_->name(); }

 private:
  [[noreturn]] void fail(uint64_t offset, const std::string& what) const;
  void decode(const std::vector<unsigned char>& payload, uint64_t offset,
              std::vector<TraceRecord>& out);

  std::unique_ptr<TraceSource> source_;
  uint64_t offset_ = 0;
  bool ended_ = false;
  TraceTotals totals_;
  std::vector<unsigned char> payload_;
};

}  // namespace quartz::profile
