// The store's schema (its tables are described in profile/store.h) and its migrations, in
// either database, and how the store names runs and reads stored timestamps.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "profile/store.h"

namespace quartz::profile {

// For writing: creates the schema in an empty database, upgrades an older store to the
// current version. For reading: changes nothing, and reads the versions whose tables the
// readers need (2 and later). Refuses anything else: StoreError "PATH: not a Quartz store",
// "PATH: store schema version N, this Quartz reads version M". A server's store is made at
// the current version, with the types SQLite's columns take there (postgres_schema).
void open_schema(db::Connection& db, StoreAccess access);

// The CRC-32 that identifies a capture's bytes in runs.capture_crc32 (format/'s CRC).
// `release`, if any, is told as it goes the offset before which it has read the bytes.
int64_t capture_crc32(std::span<const unsigned char> bytes,
                      const std::function<void(size_t)>& release = {});

// "run 3", for messages.
std::string run_name(int64_t run_id);
// A stored CLOCK_REALTIME timestamp as local time "YYYY-MM-DD HH:MM:SS"; "" for 0 (not
// recorded).
std::string local_time(int64_t realtime_ns);

}  // namespace quartz::profile
