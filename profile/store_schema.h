// The store's schema (its tables are described in profile/store.h) and its migrations,
// and how its files name runs and read stored timestamps.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace quartz::profile {

// Creates the schema in an empty database, upgrades an older store to the current
// version, and refuses anything else: StoreError "PATH: not a Quartz store", "PATH: store
// schema version N, this Quartz reads version M".
void open_schema(sqlite3* db, const std::string& path);

// "run 3", for messages.
std::string run_name(int64_t run_id);
// A stored CLOCK_REALTIME timestamp as local time "YYYY-MM-DD HH:MM:SS"; "" for 0 (not
// recorded).
std::string local_time(int64_t realtime_ns);

}  // namespace quartz::profile
