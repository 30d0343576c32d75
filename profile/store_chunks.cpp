#include "profile/store_chunks.h"

#include <algorithm>

#include "profile/sqlite.h"

namespace quartz::profile::chunks {

using sqlite::fail;
using sqlite::Statement;

namespace {

void remove(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
            const std::string& what) {
  Statement erase(db, path, "DELETE FROM chunks WHERE run_id = ? AND kind = ?", what);
  erase.bind(1, run_id);
  erase.bind(2, std::string(kind));
  erase.step();
}

// Adds an empty chunk of `n` bytes and opens it for writing.
sqlite3_blob* add_chunk(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
                        int64_t seq, uint64_t n, const std::string& what) {
  Statement insert(db, path,
                   "INSERT INTO chunks (run_id, kind, seq, bytes) VALUES (?, ?, ?, zeroblob(?))",
                   what);
  insert.bind(1, run_id);
  insert.bind(2, std::string(kind));
  insert.bind(3, seq);
  insert.bind(4, static_cast<int64_t>(n));
  insert.step();
  sqlite3_blob* blob = nullptr;
  if (sqlite3_blob_open(db, "main", "chunks", "bytes", sqlite3_last_insert_rowid(db), 1, &blob) !=
      SQLITE_OK) {
    sqlite3_blob_close(blob);
    fail(db, path, what);
  }
  return blob;
}

}  // namespace

void write(sqlite3* db, const std::string& path, int64_t run_id, const char* kind, std::istream& in,
           uint64_t size, const std::string& what, uint64_t chunk_bytes) {
  remove(db, path, run_id, kind, what);
  std::vector<char> buffer(1 << 20);
  for (uint64_t start = 0, seq = 0; start < size; start += chunk_bytes, ++seq) {
    const uint64_t n = std::min(chunk_bytes, size - start);
    sqlite3_blob* blob = add_chunk(db, path, run_id, kind, static_cast<int64_t>(seq), n, what);
    for (uint64_t at = 0; at < n;) {
      in.read(buffer.data(),
              static_cast<std::streamsize>(std::min<uint64_t>(buffer.size(), n - at)));
      const auto got = static_cast<int>(in.gcount());
      if (got <= 0 ||
          sqlite3_blob_write(blob, buffer.data(), got, static_cast<int>(at)) != SQLITE_OK) {
        sqlite3_blob_close(blob);
        if (got <= 0) throw StoreError(path + ": " + what + ": the input ended early");
        fail(db, path, what);
      }
      at += static_cast<uint64_t>(got);
    }
    if (sqlite3_blob_close(blob) != SQLITE_OK) fail(db, path, what);
  }
}

void write(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
           std::span<const unsigned char> bytes, const std::string& what, uint64_t chunk_bytes,
           const std::function<void(size_t)>& release) {
  remove(db, path, run_id, kind, what);
  for (uint64_t start = 0, seq = 0; start < bytes.size(); start += chunk_bytes, ++seq) {
    const uint64_t n = std::min<uint64_t>(chunk_bytes, bytes.size() - start);
    sqlite3_blob* blob = add_chunk(db, path, run_id, kind, static_cast<int64_t>(seq), n, what);
    // In pieces, each given back once written.
    constexpr uint64_t kPiece = uint64_t{64} << 20;
    int written = SQLITE_OK;
    for (uint64_t at = 0; at < n && written == SQLITE_OK; at += kPiece) {
      const uint64_t piece = std::min(kPiece, n - at);
      written = sqlite3_blob_write(blob, bytes.data() + start + at, static_cast<int>(piece),
                                   static_cast<int>(at));
      if (release) release(start + at + piece);
    }
    if (sqlite3_blob_close(blob) != SQLITE_OK || written != SQLITE_OK) fail(db, path, what);
  }
}

std::vector<int64_t> rowids(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
                            const std::string& what) {
  Statement rows(db, path, "SELECT rowid FROM chunks WHERE run_id = ? AND kind = ? ORDER BY seq",
                 what);
  rows.bind(1, run_id);
  rows.bind(2, std::string(kind));
  std::vector<int64_t> out;
  while (rows.step()) out.push_back(rows.integer(0));
  return out;
}

uint64_t size_of(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
                 const std::string& what) {
  Statement total(db, path, "SELECT sum(length(bytes)) FROM chunks WHERE run_id = ? AND kind = ?",
                  what);
  total.bind(1, run_id);
  total.bind(2, std::string(kind));
  return total.step() ? static_cast<uint64_t>(total.integer(0)) : 0;
}

void read_into(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
               const std::string& what, std::span<unsigned char> out) {
  size_t at = 0;
  for (int64_t rowid : rowids(db, path, run_id, kind, what)) {
    sqlite3_blob* blob = nullptr;
    if (sqlite3_blob_open(db, "main", "chunks", "bytes", rowid, 0, &blob) != SQLITE_OK) {
      sqlite3_blob_close(blob);
      fail(db, path, what);
    }
    const int n = sqlite3_blob_bytes(blob);
    if (static_cast<size_t>(n) > out.size() - at) {  // changed since its size was read
      sqlite3_blob_close(blob);
      throw StoreError(path + ": " + what + ": its chunks changed while read");
    }
    const int read = sqlite3_blob_read(blob, out.data() + at, n, 0);
    sqlite3_blob_close(blob);
    if (read != SQLITE_OK) fail(db, path, what);
    at += static_cast<size_t>(n);
  }
  if (at != out.size()) throw StoreError(path + ": " + what + ": its chunks changed while read");
}

std::vector<unsigned char> read_all(sqlite3* db, const std::string& path, int64_t run_id,
                                    const char* kind, const std::string& what) {
  std::vector<unsigned char> out(size_of(db, path, run_id, kind, what));
  read_into(db, path, run_id, kind, what, out);
  return out;
}

}  // namespace quartz::profile::chunks
