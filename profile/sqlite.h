// The store in an SQLite file (database.h): the embedded default, one person on one machine.
// Several processes may share the file: a writer waits for another's transaction (saying so
// once on stderr after a second: "quartz: PATH is locked by another process; waiting for
// it"), up to kLockWaitLimitMs; the file is in WAL mode where the file system allows.
//
// Hand-written rather than SQLiteCpp (Debian 12: libsqlitecpp-dev 3.2.1): the store also
// streams blobs through SQLite's incremental blob I/O and quotes the system's errno in
// messages, which SQLiteCpp does not wrap, so both APIs would be in use; and a new build
// dependency would replace about 130 lines.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "profile/database.h"

namespace quartz::profile::sqlite {

// How long a connection waits for another process's transaction before giving up: an
// import of a large capture holds the store for tens of seconds.
inline constexpr int64_t kLockWaitLimitMs = 10 * 60 * 1000;
inline constexpr uint64_t kChunkBytes = uint64_t{256} << 20;

// Opens the file at `path`, creating it for writing, and calls `open_schema` on the
// connection, whose failures decide how a file that cannot be written is read (immutable)
// or refused for writing (ReadOnlyStoreError "PATH: read-only (...)"). Another file than an
// SQLite database throws "PATH: not a Quartz store". The connection defines the SQL
// function quartz_capture_crc32(blob) (schema upgrades).
std::unique_ptr<db::Connection> open(const std::string& path, db::Access access,
                                     const std::function<void(db::Connection&)>& open_schema);

// True when the file is an SQLite database (header "SQLite format 3\0"); it may still be
// some other program's database.
bool looks_like_database(const std::string& path);

// `path` as a file: URI that opens it immutable: no locks, no shared-memory file, for a
// file on a read-only file system or in a read-only directory.
std::string immutable_uri(const std::string& path);

}  // namespace quartz::profile::sqlite
