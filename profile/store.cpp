#include "profile/store.h"

#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
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

// Waits shorter than this are the ordinary turn-taking of two imports: not worth a line.
constexpr int64_t kSayWaitingAfterMs = 1000;

int64_t steady_ms() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1'000'000;
}

// Why a store that SQLite opened read-only cannot be written: the file's or its directory's
// reason (a read-only file system, permissions).
std::string read_only_reason(const std::string& path) {
  const std::filesystem::path file(path);
  const std::filesystem::path directory = file.has_parent_path() ? file.parent_path() : ".";
  if (access(file.c_str(), W_OK) != 0) return std::strerror(errno);
  if (access(directory.c_str(), W_OK) != 0) {
    return "its directory: " + std::string(std::strerror(errno));
  }
  return "SQLite could not open it for writing";
}

}  // namespace

void Store::Close::operator()(sqlite3* db) const {
  // Returns SQLITE_OK for any valid handle: statements are RAII, and close_v2 would defer the
  // close past an unfinalized one rather than leak the connection.
  sqlite3_close_v2(db);
}

Store::Store(const std::string& path, StoreAccess access) : path_(path) {
  // SQLite answers "locked" at once, without the busy handler, where waiting could
  // deadlock: two processes making a new store at once (two `quartz run`s checking it)
  // both switch it to WAL, each holding the shared lock the other's switch needs. The one
  // refused opens again: by then the store is made.
  const int64_t start = steady_ms();
  for (;;) {
    try {
      open(access);
      return;
    } catch (const StoreError&) {
      const int code = db_ ? sqlite3_extended_errcode(db_.get()) & 0xff : SQLITE_OK;
      if (code != SQLITE_BUSY || steady_ms() - start >= kLockWaitLimitMs) throw;
    }
    db_.reset();
    immutable_ = false;
    sqlite3_sleep(10);
  }
}

Store::~Store() = default;

int Store::wait_for_lock(void* opaque, int attempt) {
  auto* store = static_cast<Store*>(opaque);
  const int64_t now = steady_ms();
  if (attempt == 0) store->waiting_since_ms_ = now;
  const int64_t waited = now - store->waiting_since_ms_;
  if (waited >= kLockWaitLimitMs) return 0;  // SQLITE_BUSY: "database is locked"
  if (waited >= kSayWaitingAfterMs && !store->said_waiting_) {
    store->said_waiting_ = true;
    std::fprintf(stderr, "quartz: %s is locked by another process; waiting for it\n",
                 store->path_.c_str());
  }
  sqlite3_sleep(attempt < 10 ? 1 + attempt * 5 : 50);
  return 1;
}

void Store::connect(const std::string& name, int flags) {
  sqlite3* db = nullptr;
  const int opened = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  db_.reset(db);  // a handle comes back even on most failures, and must be closed
  if (opened != SQLITE_OK) {
    throw StoreError(path_ + ": cannot open: " +
                     (db ? sqlite::describe(db) : std::string(sqlite3_errstr(opened))));
  }
  if (sqlite3_extended_result_codes(db, 1) != SQLITE_OK ||
      sqlite3_busy_handler(db, wait_for_lock, this) != SQLITE_OK) {
    fail(db, path_, "cannot open");
  }
}

void Store::open(StoreAccess access) {
  // SQLite itself would only notice a foreign file at its first read, as "file is not a
  // database"; say what it is at once. An empty file is an empty database: it becomes a store.
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path_, error);
  if (!error && bytes > 0 && !looks_like_store(path_)) {
    throw StoreError(path_ + ": not a Quartz store");
  }

  if (access == StoreAccess::read_only) {
    connect(path_, SQLITE_OPEN_READONLY);
    try {
      open_schema(db_.get(), path_, StoreAccess::read_only);
    } catch (const StoreError&) {
      // A store in WAL mode is read through its shared-memory file; in a directory nobody
      // may write, no process can have made or be changing it: read the file as it is.
      const int code = sqlite3_extended_errcode(db_.get()) & 0xff;
      if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY) throw;
      connect(sqlite::immutable_uri(path_), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
      immutable_ = true;
      open_schema(db_.get(), path_, StoreAccess::read_only);
    }
    return;
  }

  connect(path_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // SQLite opens a file it may not write read-only, without a word.
  if (sqlite3_db_readonly(db_.get(), "main") == 1) {
    throw ReadOnlyStoreError(path_ + ": read-only (" + read_only_reason(path_) + ")");
  }
  exec(db_.get(), path_, "PRAGMA foreign_keys = ON", "cannot open");
  try {
    open_schema(db_.get(), path_, StoreAccess::read_write);
  } catch (const StoreError&) {
    // A file we may write in a directory we may not: WAL's shared-memory file cannot be
    // made there.
    const int code = sqlite3_extended_errcode(db_.get()) & 0xff;
    const std::filesystem::path file(path_);
    const auto directory = file.has_parent_path() ? file.parent_path() : ".";
    if (code == SQLITE_READONLY ||
        (code == SQLITE_CANTOPEN && ::access(directory.c_str(), W_OK) != 0)) {
      throw ReadOnlyStoreError(path_ + ": read-only (" + read_only_reason(path_) + ")");
    }
    throw;
  }

  // Only now, once the file is known to be a store: never change another program's database.
  // Where there can be no WAL (some file systems), SQLite keeps its rollback journal, which
  // works too.
  Statement wal(db_.get(), path_, "PRAGMA journal_mode = WAL", "cannot open");
  try {
    while (wal.step()) {
    }
  } catch (const StoreError&) {
    if ((sqlite3_extended_errcode(db_.get()) & 0xff) != SQLITE_READONLY) throw;
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
