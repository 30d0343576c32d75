// Test helper: writes trace files byte by byte, following format/trace_format.h (and
// nothing else: not the sampler's writer), from per-thread timelines written by hand.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "format/capture_format.h"
#include "format/trace_format.h"

namespace quartz::analysis::test_support {

// One record, with times and CPU in milliseconds.
struct BuiltRecord {
  uint32_t thread = 0;
  trace::Type type{};
  uint8_t kind = 0;
  double time_ms = 0;
  uint64_t object = 0;
  uint32_t sequence = 0, aux = 0;
  double cpu_ms = 0;        // cpu and sample records
  double runqueue_ms = -1;  // samples: < 0 not read
  int64_t context = -1;     // samples: < 0 none
};

// A thread's recorded timeline: its events in order, with the CPU it used between them.
// Every event is followed by the thread's reading of its CPU clock, as a traced thread
// reading it after every event would write.
class Timeline {
 public:
  Timeline(uint32_t thread, std::vector<BuiltRecord>& out, double start_ms = 0)
      : thread_(thread), out_(out), now_(start_ms) {}

  Timeline& work(double ms) {  // on the processor
    now_ += ms;
    cpu_ += ms;
    return *this;
  }
  Timeline& off(double ms) {  // off it: waiting or blocked in the kernel
    now_ += ms;
    return *this;
  }
  Timeline& until(double ms) {  // off it until `ms`
    if (ms > now_) now_ = ms;
    return *this;
  }
  Timeline& event(trace::Type type, uint8_t kind = 0, uint64_t object = 0, uint32_t sequence = 0,
                  uint32_t aux = 0) {
    BuiltRecord r;
    r.thread = thread_;
    r.type = type;
    r.kind = kind;
    r.time_ms = now_;
    r.object = object;
    r.sequence = sequence;
    r.aux = aux;
    out_.push_back(r);
    BuiltRecord c;
    c.thread = thread_;
    c.type = trace::Type::cpu;
    c.time_ms = now_;
    c.cpu_ms = cpu_;
    out_.push_back(c);
    return *this;
  }
  // The sampler's reading: CPU clock and calling context.
  Timeline& sample(int64_t context, double runqueue_ms = -1) {
    BuiltRecord s;
    s.thread = thread_;
    s.type = trace::Type::sample;
    s.time_ms = now_;
    s.cpu_ms = cpu_;
    s.context = context;
    s.runqueue_ms = runqueue_ms;
    out_.push_back(s);
    return *this;
  }
  // The usual endings: the thread's last event and the sampler's reading after it.
  Timeline& exit() {
    event(trace::Type::thread_exit);
    BuiltRecord s;
    s.thread = thread_;
    s.type = trace::Type::sample;
    s.time_ms = now_;
    s.cpu_ms = cpu_ > 0 ? cpu_ : 1e-6;
    s.runqueue_ms = 0;
    out_.push_back(s);
    return *this;
  }
  double now() const { return now_; }
  double cpu() const { return cpu_; }

 private:
  uint32_t thread_;
  std::vector<BuiltRecord>& out_;
  double now_;
  double cpu_ = 0;
};

class TraceBytes {
 public:
  TraceBytes() {
    trace::FileHeader h{};
    std::memcpy(h.magic, trace::kFileMagic, sizeof h.magic);
    h.version = trace::kFormatVersion;
    raw(bytes_, &h, sizeof h);
  }

  // Appends the records as chunks of at most `per_chunk` records, each thread's records in
  // their order (as the sampler drains them: thread by thread within a chunk).
  void chunks(const std::vector<BuiltRecord>& records, size_t per_chunk) {
    for (size_t at = 0; at < records.size(); at += per_chunk) {
      std::vector<BuiltRecord> part(
          records.begin() + static_cast<std::ptrdiff_t>(at),
          records.begin() + static_cast<std::ptrdiff_t>(std::min(records.size(), at + per_chunk)));
      chunk(part);
    }
  }
  void chunk(const std::vector<BuiltRecord>& records) {
    std::map<uint32_t, std::vector<const BuiltRecord*>> by_thread;
    for (const auto& r : records) by_thread[r.thread].push_back(&r);
    std::vector<unsigned char> payload;
    for (const auto& [thread, list] : by_thread) {
      varint(payload, thread);
      const auto count = static_cast<uint32_t>(list.size());
      raw(payload, &count, sizeof count);
      uint64_t last = 0;
      for (const BuiltRecord* r : list) {
        payload.push_back(static_cast<uint8_t>(r->type));
        const auto ns = static_cast<uint64_t>(r->time_ms * 1e6 + 0.5);
        const auto time = [&] {
          const int64_t d = static_cast<int64_t>(ns - last);
          varint(payload, (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63));
          last = ns;
        };
        if (trace::is_sync_event(r->type)) {
          payload.push_back(r->kind);
          time();
          varint(payload, r->object);
          varint(payload, r->sequence);
          varint(payload, r->aux);
          varint(payload, 0);  // hooks
        } else if (r->type == trace::Type::cpu) {
          time();
          varint(payload, static_cast<uint64_t>(r->cpu_ms * 1e6 + 0.5));
        } else if (r->type == trace::Type::sample) {
          time();
          varint(payload, static_cast<uint64_t>(r->cpu_ms * 1e6 + 0.5));
          varint(payload,
                 r->runqueue_ms < 0 ? 0 : static_cast<uint64_t>(r->runqueue_ms * 1e6 + 0.5) + 1);
          varint(payload, r->context < 0 ? 0 : static_cast<uint64_t>(r->context) + 1);
        } else if (r->type == trace::Type::dropped) {
          varint(payload, r->object);
        }
      }
    }
    write_chunk(trace::ChunkType::events, payload);
    events_ += records.size();
  }
  void end(uint64_t dropped = 0, uint64_t threads = 0) {
    std::vector<unsigned char> payload;
    varint(payload, events_);
    varint(payload, dropped);
    varint(payload, threads);
    write_chunk(trace::ChunkType::end, payload);
  }
  const std::vector<unsigned char>& bytes() const { return bytes_; }

  static void varint(std::vector<unsigned char>& out, uint64_t v) {
    do {
      unsigned char b = v & 0x7f;
      v >>= 7;
      if (v) b |= 0x80;
      out.push_back(b);
    } while (v);
  }

 private:
  static void raw(std::vector<unsigned char>& out, const void* p, size_t n) {
    const size_t at = out.size();
    out.resize(at + n);
    std::memcpy(out.data() + at, p, n);
  }
  void write_chunk(trace::ChunkType type, const std::vector<unsigned char>& payload) {
    trace::ChunkHeader h{trace::kChunkMagic, static_cast<uint32_t>(type),
                         static_cast<uint32_t>(payload.size()),
                         capture::crc32_update(0, payload.data(), payload.size())};
    raw(bytes_, &h, sizeof h);
    if (!payload.empty()) raw(bytes_, payload.data(), payload.size());
  }

  std::vector<unsigned char> bytes_;
  uint64_t events_ = 0;
};

}  // namespace quartz::analysis::test_support
