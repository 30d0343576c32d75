#include "profile/store_chunks.h"

#include <algorithm>

namespace quartz::profile::chunks {

namespace {

void remove(db::Connection& db, int64_t run_id, const char* kind, const std::string& what) {
  auto erase = db.prepare("DELETE FROM chunks WHERE run_id = ? AND kind = ?", what);
  erase->bind(1, run_id);
  erase->bind(2, std::string(kind));
  erase->step();
}

// Calls `write(chunk, start, n)` for each chunk of a blob of `size` bytes, made in turn.
template <typename Write>
void write_chunks(db::Connection& db, int64_t run_id, const char* kind, uint64_t size,
                  const std::string& what, uint64_t chunk_bytes, Write&& write) {
  remove(db, run_id, kind, what);
  if (chunk_bytes == 0) chunk_bytes = db.chunk_bytes();
  for (uint64_t start = 0, seq = 0; start < size; start += chunk_bytes, ++seq) {
    const uint64_t n = std::min(chunk_bytes, size - start);
    std::unique_ptr<db::BlobWriter> chunk =
        db.add_chunk(run_id, kind, static_cast<int64_t>(seq), n, what);
    write(*chunk, start, n);
    chunk->close();
  }
}

}  // namespace

void write(db::Connection& db, int64_t run_id, const char* kind, std::istream& in, uint64_t size,
           const std::string& what, uint64_t chunk_bytes) {
  std::vector<char> buffer(1 << 20);
  write_chunks(db, run_id, kind, size, what, chunk_bytes,
               [&](db::BlobWriter& chunk, uint64_t, uint64_t n) {
                 for (uint64_t at = 0; at < n;) {
                   in.read(buffer.data(),
                           static_cast<std::streamsize>(std::min<uint64_t>(buffer.size(), n - at)));
                   const auto got = static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0));
                   if (got == 0) db.fail(what, "the input ended early");
                   chunk.write(reinterpret_cast<const unsigned char*>(buffer.data()), got, at);
                   at += got;
                 }
               });
}

void write(db::Connection& db, int64_t run_id, const char* kind,
           std::span<const unsigned char> bytes, const std::string& what, uint64_t chunk_bytes,
           const std::function<void(size_t)>& release) {
  write_chunks(db, run_id, kind, bytes.size(), what, chunk_bytes,
               [&](db::BlobWriter& chunk, uint64_t start, uint64_t n) {
                 // In pieces, each given back once written.
                 constexpr uint64_t kPiece = uint64_t{64} << 20;
                 for (uint64_t at = 0; at < n; at += kPiece) {
                   const uint64_t piece = std::min(kPiece, n - at);
                   chunk.write(bytes.data() + start + at, piece, at);
                   if (release) release(start + at + piece);
                 }
               });
}

void write(db::Connection& db, int64_t run_id, const char* kind, TraceSource& trace,
           const std::string& what, uint64_t chunk_bytes) {
  remove(db, run_id, kind, what);
  if (chunk_bytes == 0) chunk_bytes = std::min<uint64_t>(db.chunk_bytes(), uint64_t{16} << 20);
  std::vector<unsigned char> buffer(chunk_bytes);
  for (int64_t seq = 0;; ++seq) {
    const size_t n = trace.read(buffer.data(), buffer.size());
    if (n == 0) break;
    std::unique_ptr<db::BlobWriter> chunk = db.add_chunk(run_id, kind, seq, n, what);
    chunk->write(buffer.data(), n, 0);
    chunk->close();
    if (n < buffer.size()) break;  // its end
  }
}

std::vector<int64_t> ids(db::Connection& db, int64_t run_id, const char* kind,
                         const std::string& what) {
  auto rows = db.prepare(std::string("SELECT ") + db.row_id() +
                             " FROM chunks WHERE run_id = ? AND kind = ? ORDER BY seq",
                         what);
  rows->bind(1, run_id);
  rows->bind(2, std::string(kind));
  std::vector<int64_t> out;
  while (rows->step()) out.push_back(rows->integer(0));
  return out;
}

uint64_t size_of(db::Connection& db, int64_t run_id, const char* kind, const std::string& what) {
  auto total =
      db.prepare("SELECT sum(length(bytes)) FROM chunks WHERE run_id = ? AND kind = ?", what);
  total->bind(1, run_id);
  total->bind(2, std::string(kind));
  return total->step() ? total->unsigned_integer(0) : 0;
}

void read_into(db::Connection& db, int64_t run_id, const char* kind, const std::string& what,
               std::span<unsigned char> out) {
  size_t at = 0;
  for (int64_t id : ids(db, run_id, kind, what)) {
    std::unique_ptr<db::BlobReader> chunk = db.open_blob("chunks", id, what);
    const uint64_t n = chunk->size();
    // Changed since its size was read.
    if (n > out.size() - at) db.fail(what, "its chunks changed while read");
    chunk->read(out.data() + at, n, 0);
    at += n;
  }
  if (at != out.size()) db.fail(what, "its chunks changed while read");
}

std::vector<unsigned char> read_all(db::Connection& db, int64_t run_id, const char* kind,
                                    const std::string& what) {
  std::vector<unsigned char> out(size_of(db, run_id, kind, what));
  read_into(db, run_id, kind, what, out);
  return out;
}

}  // namespace quartz::profile::chunks
