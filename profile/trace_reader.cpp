#include "profile/trace_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "format/capture_format.h"
#include "profile/capture.h"

namespace quartz::profile {
namespace {

class FileSource : public TraceSource {
 public:
  FileSource(std::FILE* file, std::string path) : file_(file), path_(std::move(path)) {}
  ~FileSource() override { std::fclose(file_); }
  size_t read(void* out, size_t n) override { return std::fread(out, 1, n, file_); }
  const std::string& name() const override { return path_; }

 private:
  std::FILE* file_;
  std::string path_;
};

class BytesSource : public TraceSource {
 public:
  BytesSource(std::vector<unsigned char> bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  size_t read(void* out, size_t n) override {
    const size_t k = std::min(n, bytes_.size() - at_);
    if (k == 0) return 0;  // an empty vector's data() may be null, which memcpy must not see
    std::memcpy(out, bytes_.data() + at_, k);
    at_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }

 private:
  std::vector<unsigned char> bytes_;
  std::string name_;
  size_t at_ = 0;
};

// Reads varints and bytes from a chunk's payload; throws through `fail` past its end.
class ChunkCursor {
 public:
  ChunkCursor(const std::vector<unsigned char>& bytes, uint64_t base, const TraceReader& reader)
      : bytes_(bytes), base_(base), reader_(reader) {}
  bool done() const { return at_ == bytes_.size(); }
  uint64_t offset() const { return base_ + at_; }
  uint8_t byte(const char* what) {
    need(1, what);
    return bytes_[at_++];
  }
  uint32_t u32(const char* what) {
    need(4, what);
    uint32_t v;
    std::memcpy(&v, bytes_.data() + at_, 4);
    at_ += 4;
    return v;
  }
  uint64_t varint(const char* what) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = byte(what);
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    throw TraceError(reader_.name() + ": offset " + std::to_string(offset()) + ": " + what +
                     ": varint too long");
  }
  uint32_t varint32(const char* what) {
    const uint64_t v = varint(what);
    if (v > 0xffffffffu) {
      throw TraceError(reader_.name() + ": offset " + std::to_string(offset()) + ": " + what +
                       ": out of range");
    }
    return static_cast<uint32_t>(v);
  }
  int64_t zigzag(const char* what) {
    const uint64_t v = varint(what);
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }

 private:
  void need(size_t n, const char* what) const {
    if (bytes_.size() - at_ < n) {
      throw TraceError(reader_.name() + ": offset " + std::to_string(offset()) + ": " + what +
                       ": chunk ends inside a record");
    }
  }
  const std::vector<unsigned char>& bytes_;
  uint64_t base_;
  const TraceReader& reader_;
  size_t at_ = 0;
};

// Reads a chunk's payload; false if the trace ends first. A piece at a time, so that a
// damaged length costs only the bytes the trace really has, not the 4 GB it may claim (found
// by fuzz/trace_reader_fuzzer).
bool read_payload(TraceSource& source, uint32_t bytes, std::vector<unsigned char>& payload) {
  constexpr size_t kPieceBytes = size_t{1} << 20;
  payload.clear();
  while (payload.size() < bytes) {
    const size_t at = payload.size();
    const size_t piece = std::min(kPieceBytes, bytes - at);
    payload.resize(at + piece);
    if (source.read(payload.data() + at, piece) != piece) return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<TraceSource> open_trace_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw TraceError(path + ": cannot open: " + std::strerror(errno));
  return std::make_unique<FileSource>(file, path);
}

std::unique_ptr<TraceSource> trace_from_bytes(std::vector<unsigned char> bytes, std::string name) {
  return std::make_unique<BytesSource>(std::move(bytes), std::move(name));
}

TraceReader::TraceReader(std::unique_ptr<TraceSource> source) : source_(std::move(source)) {
  trace::FileHeader header;
  if (source_->read(&header, sizeof header) != sizeof header)
    fail(0, "too short for a trace header");
  if (std::memcmp(header.magic, trace::kFileMagic, sizeof header.magic) != 0)
    fail(0, "not a Quartz trace");
  if (header.version < trace::kOldestFormatVersion || header.version > trace::kFormatVersion) {
    fail(8, "trace format version " + std::to_string(header.version) +
                ", this Quartz reads versions " + std::to_string(trace::kOldestFormatVersion) +
                " to " + std::to_string(trace::kFormatVersion));
  }
  offset_ = sizeof header;
  totals_.bytes = offset_;
}

void TraceReader::fail(uint64_t offset, const std::string& what) const {
  throw TraceError(name() + ": offset " + std::to_string(offset) + ": " + what);
}

bool TraceReader::next_chunk(std::vector<TraceRecord>& out) {
  out.clear();
  while (!ended_) {
    trace::ChunkHeader header;
    const size_t got = source_->read(&header, sizeof header);
    if (got == 0) {
      ended_ = true;  // no end chunk: the run did not finish writing
      return false;
    }
    if (got != sizeof header) {
      ended_ = true;  // torn while written
      return false;
    }
    if (header.magic != trace::kChunkMagic) fail(offset_, "bad chunk magic");
    if (!read_payload(*source_, header.bytes, payload_)) {
      ended_ = true;  // torn while written
      return false;
    }
    const uint64_t payload_offset = offset_ + sizeof header;
    if (checksum(payload_) != header.crc32) {
      fail(offset_, "chunk checksum mismatch");
    }
    offset_ = payload_offset + header.bytes;
    totals_.bytes = offset_;
    if (header.type == static_cast<uint32_t>(trace::ChunkType::end)) {
      ChunkCursor c(payload_, payload_offset, *this);
      totals_.events = c.varint("end: events");
      totals_.dropped = c.varint("end: dropped");
      totals_.threads = c.varint("end: threads");
      totals_.complete = true;
      ended_ = true;
      return false;
    }
    if (header.type != static_cast<uint32_t>(trace::ChunkType::events)) {
      fail(payload_offset - sizeof header, "unknown chunk type " + std::to_string(header.type));
    }
    decode(payload_, payload_offset, out);
    totals_.records += out.size();
    if (!out.empty()) return true;
  }
  return false;
}

void TraceReader::decode(const std::vector<unsigned char>& payload, uint64_t offset,
                         std::vector<TraceRecord>& out) {
  ChunkCursor c(payload, offset, *this);
  while (!c.done()) {
    const uint32_t thread = c.varint32("thread index");
    const uint32_t count = c.u32("record count");
    uint64_t last_ns = 0;
    for (uint32_t i = 0; i < count; ++i) {
      TraceRecord r;
      r.thread = thread;
      const uint64_t at = c.offset();
      r.type = static_cast<trace::Type>(c.byte("record type"));
      if (trace::is_sync_event(r.type)) {
        r.kind = c.byte("kind");
        last_ns += static_cast<uint64_t>(c.zigzag("time"));
        r.time_ns = last_ns;
        r.object = c.varint("object");
        r.sequence = c.varint32("sequence");
        r.aux = c.varint32("aux");
        r.hooks = c.varint("hooks");
        if (r.kind >= capture::kKindCount)
          fail(at, "unknown object kind " + std::to_string(r.kind));
      } else if (r.type == trace::Type::sample) {
        last_ns += static_cast<uint64_t>(c.zigzag("time"));
        r.time_ns = last_ns;
        r.cpu_ns = c.varint("cpu");
        const uint64_t runqueue = c.varint("run queue");
        r.has_runqueue = runqueue != 0;
        r.runqueue_ns = runqueue ? runqueue - 1 : 0;
        const uint64_t context = c.varint("context");
        r.has_context = context != 0;
        r.context = context ? static_cast<uint32_t>(context - 1) : 0;
      } else if (r.type == trace::Type::cpu) {
        last_ns += static_cast<uint64_t>(c.zigzag("time"));
        r.time_ns = last_ns;
        r.cpu_ns = c.varint("cpu");
      } else if (r.type == trace::Type::dropped) {
        r.dropped = c.varint("dropped");
        r.time_ns = last_ns;
      } else {
        fail(at, "unknown record type " + std::to_string(static_cast<int>(r.type)));
      }
      out.push_back(r);
    }
  }
}

}  // namespace quartz::profile
