#include "profile/store.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "profile/sqlite.h"
#include "profile/store_schema.h"

namespace quartz::profile {

using sqlite::exec;
using sqlite::fail;
using sqlite::Statement;

namespace {
// How long a writer waits for another process's transaction before giving up.
constexpr int kBusyTimeoutMs = 10'000;
}  // namespace

void Store::Close::operator()(sqlite3* db) const {
  // Returns SQLITE_OK for any valid handle: statements are RAII, and close_v2 would defer the
  // close past an unfinalized one rather than leak the connection.
  sqlite3_close_v2(db);
}

Store::Store(const std::string& path) : path_(path) {
  open();
}

Store::~Store() = default;

void Store::open() {
  // SQLite itself would only notice a foreign file at its first read, as "file is not a
  // database"; say what it is at once. An empty file is an empty database: it becomes a store.
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path_, error);
  if (!error && bytes > 0 && !looks_like_store(path_)) {
    throw StoreError(path_ + ": not a Quartz store");
  }

  sqlite3* db = nullptr;
  const int opened =
      sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  db_.reset(db);  // a handle comes back even on most failures, and must be closed
  if (opened != SQLITE_OK) {
    throw StoreError(path_ + ": cannot open: " +
                     (db ? sqlite::describe(db) : std::string(sqlite3_errstr(opened))));
  }
  if (sqlite3_extended_result_codes(db, 1) != SQLITE_OK ||
      sqlite3_busy_timeout(db, kBusyTimeoutMs) != SQLITE_OK) {
    fail(db, path_, "cannot open");
  }
  exec(db, path_, "PRAGMA foreign_keys = ON", "cannot open");
  open_schema(db, path_);

  // Only now, once the file is known to be a store: never change another program's database.
  // Where there can be no WAL (some file systems; a file we may only read), SQLite keeps its
  // rollback journal, which works too.
  Statement wal(db, path_, "PRAGMA journal_mode = WAL", "cannot open");
  try {
    while (wal.step()) {
    }
  } catch (const StoreError&) {
    if ((sqlite3_extended_errcode(db) & 0xff) != SQLITE_READONLY) throw;
  }
}

bool Store::looks_like_store(const std::string& path) {
  static constexpr char kHeader[16] = "SQLite format 3";  // with its NUL: 16 bytes
  std::ifstream in(path, std::ios::binary);
  char header[sizeof kHeader] = {};
  in.read(header, sizeof header);
  return in.gcount() == sizeof header && std::memcmp(header, kHeader, sizeof header) == 0;
}

}  // namespace quartz::profile
