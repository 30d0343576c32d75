// The store on a PostgreSQL server (database.h), through libpq: a team's runs in one place,
// written by many machines at once. The location is a libpq URI (postgresql://...); the
// password, if any, comes from libpq's usual places (the URI, PGPASSWORD, ~/.pgpass) and is
// never part of the store's name in messages.
//
// Writers exclude each other for the length of a transaction (an advisory lock), as SQLite's
// do: a run's rows appear at once, whole, and a capture stored twice is found. Statements
// are prepared on the server; parameters travel as text and blobs as bytes, results as
// bytes (exact integers and doubles, blobs without escaping).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "profile/database.h"

namespace quartz::profile::postgres {

// Large blobs go in pieces of this size: each is one message, held whole by the server and
// by libpq while it travels.
inline constexpr uint64_t kChunkBytes = uint64_t{16} << 20;

// Connects to the server at `uri` and calls `open_schema` on the connection. Throws
// UnreachableStoreError "NAME: cannot open: REASON" (one line) when the server cannot be
// reached or refuses the connection;
// ReadOnlyStoreError "NAME: read-only (...)" for writing with a role that may not.
std::unique_ptr<db::Connection> open(const std::string& uri, db::Access access,
                                     const std::function<void(db::Connection&)>& open_schema);

// `uri` as messages may show it: without a password, in the URI or its parameters.
std::string public_name(const std::string& uri);

}  // namespace quartz::profile::postgres
