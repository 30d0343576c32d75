// Large blobs of a run (its capture, its trace) stored as a sequence of chunks (schema
// version 5: chunks), so that neither a database's limit on one blob (SQLite's 1e9 bytes)
// nor memory bounds what a run may hold: a trace is streamed in and out a piece at a time.
// The chunks' size is the database's (db::Connection::chunk_bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <span>
#include <string>
#include <vector>

#include "profile/database.h"
#include "profile/trace_reader.h"

namespace quartz::profile::chunks {

inline constexpr const char* kCapture = "capture";
inline constexpr const char* kTrace = "trace";

// Replaces the run's blob of `kind` with `size` bytes read from `in`; `what` names the
// operation in errors; `chunk_bytes` 0: the database's. Call inside a transaction.
void write(db::Connection& db, int64_t run_id, const char* kind, std::istream& in, uint64_t size,
           const std::string& what, uint64_t chunk_bytes = 0);
// The same from memory; `release`, if any, is told after each piece the offset it reached.
void write(db::Connection& db, int64_t run_id, const char* kind,
           std::span<const unsigned char> bytes, const std::string& what, uint64_t chunk_bytes = 0,
           const std::function<void(size_t)>& release = {});

// The same from `trace` read to its end, of a size not known ahead, in chunks of at most
// `chunk_bytes` (0: the database's, or 16 MB: each is gathered in memory).
void write(db::Connection& db, int64_t run_id, const char* kind, TraceSource& trace,
           const std::string& what, uint64_t chunk_bytes = 0);

// The ids (db::Connection::row_id) of the run's chunks of `kind`, in order (none: it has no
// such blob in chunks).
std::vector<int64_t> ids(db::Connection& db, int64_t run_id, const char* kind,
                         const std::string& what);
// The run's blob of `kind`: its size, and its bytes into `out` (of that size) or whole.
uint64_t size_of(db::Connection& db, int64_t run_id, const char* kind, const std::string& what);
void read_into(db::Connection& db, int64_t run_id, const char* kind, const std::string& what,
               std::span<unsigned char> out);
std::vector<unsigned char> read_all(db::Connection& db, int64_t run_id, const char* kind,
                                    const std::string& what);

}  // namespace quartz::profile::chunks
