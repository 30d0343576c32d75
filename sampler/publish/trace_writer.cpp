#include "sampler/publish/trace_writer.h"

#include <stdio.h>
#include <string.h>

#include "format/capture_format.h"
#include "format/trace_format.h"
#include "runtime/run_status.h"
#include "support/safe_file.h"

namespace quartz::sampler {
namespace {

constexpr size_t kMaxChunkBytes = size_t{1} << 30;
constexpr size_t kMaxThreads = size_t{1} << 24;

}  // namespace

bool TraceWriter::open(const char* capture_path, uint64_t start_ticks, double ns_per_tick) {
  if (snprintf(path_, sizeof path_, "%s.trace", capture_path) >= static_cast<int>(sizeof path_)) {
    return false;
  }
  if (!chunk_.reserve(kMaxChunkBytes) || !threads_.reserve(kMaxThreads)) return false;
  if (const int error = support::create_file(path_)) {
    rt::note_write_failed(rt::RunFile::trace, path_, error);
    return false;
  }
  open_ = true;
  start_ticks_ = start_ticks;
  ns_per_tick_ = ns_per_tick;
  trace::FileHeader header{};
  memcpy(header.magic, trace::kFileMagic, sizeof header.magic);
  header.version = trace::kFormatVersion;
  if (!append(&header, sizeof header, nullptr, 0)) return false;
  bytes_written_ = sizeof header;
  return true;
}

bool TraceWriter::append(const void* header, size_t header_bytes, const void* data, size_t n) {
  if (const int error = support::append_to_file(path_, header, header_bytes, data, n)) {
    rt::note_write_failed(rt::RunFile::trace, path_, error);
    open_ = false;
    return false;
  }
  return true;
}

void TraceWriter::byte(uint8_t v) {
  const size_t at = chunk_.size();
  if (chunk_.resize_at_least(at + 1)) chunk_[at] = v;
}

void TraceWriter::varint(uint64_t v) {
  unsigned char buffer[10];
  size_t n = 0;
  do {
    buffer[n] = static_cast<unsigned char>(v & 0x7f);
    v >>= 7;
    if (v) buffer[n] |= 0x80;
    ++n;
  } while (v);
  const size_t at = chunk_.size();
  if (chunk_.resize_at_least(at + n)) memcpy(&chunk_[at], buffer, n);
}

void TraceWriter::time(uint64_t at_ns) {
  const int64_t delta = static_cast<int64_t>(at_ns - last_ns_);
  varint((static_cast<uint64_t>(delta) << 1) ^ static_cast<uint64_t>(delta >> 63));  // zig-zag
  last_ns_ = at_ns;
}

void TraceWriter::enter_thread(uint32_t thread_index) {
  if (current_thread_ == thread_index) return;
  close_thread();
  if (threads_.size() <= thread_index) threads_.resize_at_least(thread_index + 1);
  if (thread_index + 1 > thread_count_) thread_count_ = thread_index + 1;
  varint(thread_index);
  count_at_ = chunk_.size();
  const uint32_t zero = 0;
  if (chunk_.resize_at_least(count_at_ + sizeof zero))
    memcpy(&chunk_[count_at_], &zero, sizeof zero);
  current_thread_ = thread_index;
  count_ = 0;
  last_ns_ = 0;
}

void TraceWriter::close_thread() {
  if (current_thread_ == ~0u) return;
  if (count_at_ + sizeof count_ <= chunk_.size())
    memcpy(&chunk_[count_at_], &count_, sizeof count_);
  current_thread_ = ~0u;
}

void TraceWriter::drain(uint32_t thread_index, rt::ThreadBlock& block) {
  if (!open_ || !block.trace || thread_index >= kMaxThreads) return;
  enter_thread(thread_index);
  PerThread& state = threads_[thread_index];
  const size_t drained = block.trace->drain([&](const rt::TraceEvent& e) {
    const uint64_t ticks = e.ticks > start_ticks_ ? e.ticks - start_ticks_ : 0;
    if (e.type == trace::Type::cpu) {
      byte(static_cast<uint8_t>(e.type));
      time(static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick_));
      varint(e.object);
      ++count_;
      return;
    }
    const uint32_t hooks = state.seen ? (e.hooks - state.last_hooks) / 2 : 0;
    state.last_hooks = e.hooks;
    state.seen = 1;
    byte(static_cast<uint8_t>(e.type));
    byte(e.kind);
    time(static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick_));
    varint(e.object);
    varint(e.sequence);
    varint(e.aux);
    varint(hooks);
    ++count_;
  });
  events_ += drained;
  const uint64_t dropped = block.trace->dropped();
  if (dropped > state.dropped) {
    byte(static_cast<uint8_t>(trace::Type::dropped));
    varint(dropped - state.dropped);
    ++count_;
    dropped_ += dropped - state.dropped;
    state.dropped = dropped;
  }
}

void TraceWriter::sample(uint32_t thread_index, uint64_t at_ns, uint64_t cpu_ns,
                         uint64_t runqueue_ns, uint32_t context) {
  if (!open_ || thread_index >= kMaxThreads) return;
  enter_thread(thread_index);
  byte(static_cast<uint8_t>(trace::Type::sample));
  time(at_ns);
  varint(cpu_ns);
  varint(runqueue_ns == ~0ull ? 0 : runqueue_ns + 1);
  varint(context == ~0u ? 0 : uint64_t{context} + 1);
  ++count_;
}

void TraceWriter::write_chunk(uint32_t type) {
  trace::ChunkHeader header{trace::kChunkMagic, type, static_cast<uint32_t>(chunk_.size()),
                            capture::crc32_update(0, chunk_.data(), chunk_.size())};
  if (append(&header, sizeof header, chunk_.data(), chunk_.size())) {
    bytes_written_ += sizeof header + chunk_.size();
  }
  chunk_.reuse();
}

void TraceWriter::flush(size_t threshold) {
  if (!open_) return;
  close_thread();
  if (chunk_.size() == 0 || chunk_.size() < threshold) return;
  write_chunk(static_cast<uint32_t>(trace::ChunkType::events));
}

void TraceWriter::finish() {
  if (!open_) return;
  flush();
  varint(events_);
  varint(dropped_);
  varint(thread_count_);
  write_chunk(static_cast<uint32_t>(trace::ChunkType::end));
  open_ = false;
}

}  // namespace quartz::sampler
