// How a capture's bytes are written (format/capture_format.h): fields, sections, full
// records and run keys, into mapped memory (never malloc). Shared by the capture writer and
// the amendment log.
#pragma once

#include <string.h>

#include <atomic>
#include <charconv>
#include <cstddef>
#include <cstdint>

#include "format/capture_format.h"
#include "runtime/thread_history.h"
#include "sampler/attribution.h"
#include "sampler/run_info.h"
#include "sampler/tables.h"
#include "support/attributes.h"

namespace quartz::sampler {

// Appends fields to a mapped byte buffer (`Bytes`: CaptureBuffer or a MappedVector of bytes:
// size, resize_at_least, []); a full buffer makes every later append a no-op and ok() false.
template <typename Bytes>
class CaptureOut {
 public:
  QUARTZ_NOINSTR CaptureOut(Bytes& bytes, const std::atomic<bool>* give_up = nullptr)
      : bytes_(bytes), give_up_(give_up) {}

  QUARTZ_NOINSTR void raw(const void* data, size_t n) {
    const size_t at = bytes_.size();
    if (!ok_ || !bytes_.resize_at_least(at + n)) {
      ok_ = false;
      return;
    }
    memcpy(&bytes_[at], data, n);
  }
  QUARTZ_NOINSTR void u32(uint32_t v) { raw(&v, sizeof v); }
  QUARTZ_NOINSTR void i32(int32_t v) { raw(&v, sizeof v); }
  QUARTZ_NOINSTR void u64(uint64_t v) { raw(&v, sizeof v); }
  QUARTZ_NOINSTR void f64(double v) { raw(&v, sizeof v); }
  QUARTZ_NOINSTR void f64s(const double* v, size_t n) { raw(v, n * sizeof(double)); }
  QUARTZ_NOINSTR void str(const char* s) {
    const size_t n = strlen(s);
    u32(static_cast<uint32_t>(n));
    raw(s, n);
  }
  QUARTZ_NOINSTR void zeros(size_t doubles) {
    const size_t at = bytes_.size(), n = doubles * sizeof(double);
    if (!ok_ || !bytes_.resize_at_least(at + n)) {
      ok_ = false;
      return;
    }
    memset(&bytes_[at], 0, n);
  }

  // Sections: begin() leaves room for the header, end() fills it in.
  QUARTZ_NOINSTR void begin(capture::SectionType type) {
    section_start_ = bytes_.size();
    capture::SectionHeader h{static_cast<uint32_t>(type), 0, 0, 0, 0};
    raw(&h, sizeof h);
    ++sections_;
  }
  QUARTZ_NOINSTR void end() {
    if (!ok_) return;
    // Headers land at any offset: copied, never accessed in place.
    capture::SectionHeader h;
    memcpy(&h, &bytes_[section_start_], sizeof h);
    const size_t payload = section_start_ + sizeof(capture::SectionHeader);
    h.bytes = bytes_.size() - payload;  // its CRC: seal_capture's
    memcpy(&bytes_[section_start_], &h, sizeof h);
  }
  // A section whose payload starts with its item count, known only at its end: begin it,
  // write the items, end it with the count.
  QUARTZ_NOINSTR void begin_counted(capture::SectionType type) {
    begin(type);
    count_at_ = bytes_.size();
    u32(0);
  }
  // Sets a u32 written before, at `position`: a count known only at the end.
  QUARTZ_NOINSTR void patch_u32(size_t position, uint32_t v) {
    if (ok_) memcpy(&bytes_[position], &v, sizeof v);
  }
  QUARTZ_NOINSTR void end_counted(uint32_t count) {
    if (ok_) memcpy(&bytes_[count_at_], &count, sizeof count);
    end();
  }
  // A whole section written before (its header included), as it was.
  QUARTZ_NOINSTR void section_copy(const void* data, size_t n) {
    raw(data, n);
    ++sections_;
  }
  // After each item of a section that grows with the program: a build asked to give up
  // stops here (CaptureWriter::write).
  QUARTZ_NOINSTR void item_written() {
    if (give_up_ && ++items_ % 64 == 0 && give_up_->load(std::memory_order_relaxed)) ok_ = false;
  }
  QUARTZ_NOINSTR const unsigned char* at(size_t position) const { return &bytes_[position]; }
  QUARTZ_NOINSTR size_t position() const { return bytes_.size(); }
  QUARTZ_NOINSTR uint32_t sections() const { return sections_; }
  QUARTZ_NOINSTR bool ok() const { return ok_; }

 private:
  Bytes& bytes_;
  const std::atomic<bool>* give_up_;
  uint64_t items_ = 0;
  size_t section_start_ = 0;
  size_t count_at_ = 0;
  uint32_t sections_ = 0;
  bool ok_ = true;
};

// A full record as the file has it (`record` null: none, all zeros): the runnable-thread
// rows cut to the bins in use (ProfileTables::runnable_bins_used), the header's R1.
template <typename Out>
QUARTZ_NOINSTR void full_record(Out& out, const ProfileTables& tables, const double* record) {
  const RecordShape& shape = tables.shape();
  const uint32_t bins = tables.runnable_bins_used();
  if (!record) {
    out.zeros(shape.runnable(0) + size_t{capture::kStateCount} * bins);
    return;
  }
  out.f64s(record, shape.runnable(0));
  for (uint32_t s = 0; s < capture::kStateCount; ++s) out.f64s(record + shape.runnable(s), bins);
}

template <typename Out>
QUARTZ_NOINSTR void key_number(Out& out, uint32_t* count, const char* key, uint64_t value) {
  // Not snprintf: at ~0.4 us a number the run section would take a fifth of a publication.
  char text[24];
  const std::to_chars_result end = std::to_chars(text, text + sizeof text - 1, value);
  *end.ptr = '\0';
  out.str(key);
  out.str(text);
  ++*count;
}
template <typename Out>
QUARTZ_NOINSTR void key_text(Out& out, uint32_t* count, const char* key, const char* value) {
  out.str(key);
  out.str(value);
  ++*count;
}

// What the snapshots saw of an object: its waits, hold, queue lengths and full record.
template <typename Out>
QUARTZ_NOINSTR void object_figures(Out& out, const ProfileTables& tables, uint32_t sampled) {
  const ObjectEntry& o = tables.object_entry(sampled);
  out.f64(o.wait_spinning_s);
  out.f64(o.wait_blocked_s);
  out.f64(o.hold_s);
  out.u32(kQueueBins);
  out.f64s(tables.object_queue(sampled), kQueueBins);
  full_record(out, tables, tables.object_record(sampled));
}

// A thread's item of thread_routines: whether the program named it, and its first
// procedures (rt::ThreadRecord::routines).
template <typename Out>
QUARTZ_NOINSTR void thread_routines_item(Out& out, uint32_t index, const rt::ThreadRecord& r) {
  out.u32(index);
  out.u32(r.named.load(std::memory_order_relaxed) != 0);
  const uint32_t count = r.routine_count.load(std::memory_order_relaxed);
  const uint32_t k = count < rt::kThreadRoutines ? count : rt::kThreadRoutines;
  out.u32(k);
  for (uint32_t i = 0; i < k; ++i) out.u64(r.routines[i].load(std::memory_order_relaxed));
}

// The run keys of the program's starvation (attribution.h Starvation).
template <typename Out>
QUARTZ_NOINSTR void starvation_keys(Out& out, uint32_t* count, const Starvation& starved) {
  namespace keys = capture::run_keys;
  auto ns = [](double s) { return static_cast<uint64_t>(s * 1e9 + 0.5); };
  key_number(out, count, keys::kStarvedStartupNs, ns(starved.startup_s));
  key_number(out, count, keys::kStarvedBetweenNs, ns(starved.between_s));
  key_number(out, count, keys::kStarvedWinddownNs, ns(starved.winddown_s));
  if (starved.full_seen) {
    key_number(out, count, keys::kFirstFullNs, ns(starved.first_full_s));
    key_number(out, count, keys::kLastFullNs, ns(starved.last_full_s));
  }
}

// The run keys of the schedule the sampler kept (measure/period.h), as of the last snapshot.
template <typename Out>
QUARTZ_NOINSTR void schedule_keys(Out& out, uint32_t* count, const RunInfo& info) {
  namespace keys = capture::run_keys;
  key_number(out, count, keys::kPeriodLongestNs, info.period_longest_ns);
  key_number(out, count, keys::kSnapshotsDue, info.snapshots_due);
  key_number(out, count, keys::kSnapshotsLate, info.snapshots_late);
  key_number(out, count, keys::kSnapshotsLost, info.snapshots_lost);
  key_number(out, count, keys::kSnapshotWalkNs, info.walk_ns);
}

}  // namespace quartz::sampler
