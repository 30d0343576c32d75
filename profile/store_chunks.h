// Large blobs of a run (its capture, its trace) stored as a sequence of chunks (schema
// version 5: chunks), so that neither SQLite's limit on one blob (1e9 bytes) nor memory
// bounds what a run may hold: a trace is streamed in and out a piece at a time.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <vector>

namespace quartz::profile::chunks {

inline constexpr uint64_t kChunkBytes = uint64_t{256} << 20;
inline constexpr const char* kCapture = "capture";
inline constexpr const char* kTrace = "trace";

// Replaces the run's blob of `kind` with `size` bytes read from `in`, in chunks of
// `chunk_bytes`; `what` names the operation in errors. Call inside a transaction.
void write(sqlite3* db, const std::string& path, int64_t run_id, const char* kind, std::istream& in,
           uint64_t size, const std::string& what, uint64_t chunk_bytes = kChunkBytes);
// The same from memory; `release`, if any, is told after each chunk the offset it reached.
void write(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
           std::span<const unsigned char> bytes, const std::string& what,
           uint64_t chunk_bytes = kChunkBytes, const std::function<void(size_t)>& release = {});

// The rowids of the run's chunks of `kind`, in order (none: it has no such blob in chunks).
std::vector<int64_t> rowids(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
                            const std::string& what);
// The run's blob of `kind`: its size, and its bytes into `out` (of that size) or whole.
uint64_t size_of(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
                 const std::string& what);
void read_into(sqlite3* db, const std::string& path, int64_t run_id, const char* kind,
               const std::string& what, std::span<unsigned char> out);
std::vector<unsigned char> read_all(sqlite3* db, const std::string& path, int64_t run_id,
                                    const char* kind, const std::string& what);

}  // namespace quartz::profile::chunks
