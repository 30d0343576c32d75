#include "profile/sqlite.h"

#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "profile/store_schema.h"

namespace quartz::profile::sqlite {

namespace {

// Waits shorter than this are the ordinary turn-taking of two imports: not worth a line.
constexpr int64_t kSayWaitingAfterMs = 1000;

int64_t steady_ms() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000 + now.tv_nsec / 1'000'000;
}

// SQLite's message for the last error on `db`, with the system's reason when a file
// operation failed ("unable to open database file (Permission denied)").
std::string describe(sqlite3* db) {
  std::string message = sqlite3_errmsg(db);
  const int primary = sqlite3_extended_errcode(db) & 0xff;
  const int system_errno = sqlite3_system_errno(db);
  if ((primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR) && system_errno != 0) {
    message += std::string(" (") + std::strerror(system_errno) + ")";
  }
  return message;
}

int primary_code(sqlite3* db) {
  return db ? sqlite3_extended_errcode(db) & 0xff : SQLITE_OK;
}

// Throws "PATH: WHAT: message", or "PATH: not a Quartz store" when SQLite found no database.
[[noreturn]] void throw_error(sqlite3* db, const std::string& path, const std::string& what) {
  if (primary_code(db) == SQLITE_NOTADB) throw StoreError(path + ": not a Quartz store");
  throw StoreError(path + ": " + what + ": " + describe(db));
}

class SqliteStatement : public db::Statement {
 public:
  SqliteStatement(sqlite3* db, const std::string& path, const std::string& sql, std::string what)
      : db_(db), path_(path), what_(std::move(what)) {
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement_, nullptr) != SQLITE_OK) fail();
  }
  // The statement's last error, if any, was reported by step().
  ~SqliteStatement() override { sqlite3_finalize(statement_); }

  void bind(int i, int64_t value) override { check(sqlite3_bind_int64(statement_, i, value)); }
  void bind(int i, double value) override { check(sqlite3_bind_double(statement_, i, value)); }
  void bind(int i, const std::string& value) override {
    check(sqlite3_bind_text64(statement_, i, value.data(), value.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8));
  }
  void bind_blob(int i, std::span<const unsigned char> bytes) override {
    check(bytes.empty()
              ? sqlite3_bind_zeroblob(statement_, i, 0)
              : sqlite3_bind_blob64(statement_, i, bytes.data(), bytes.size(), SQLITE_STATIC));
  }
  bool step() override {
    const int result = sqlite3_step(statement_);
    if (result == SQLITE_ROW) return true;
    if (result == SQLITE_DONE) return false;
    fail();
  }
  void reset() override {
    check(sqlite3_reset(statement_));
    check(sqlite3_clear_bindings(statement_));
  }

  bool is_null(int i) const override { return sqlite3_column_type(statement_, i) == SQLITE_NULL; }
  int64_t integer(int i) const override { return sqlite3_column_int64(statement_, i); }
  double real(int i) const override { return sqlite3_column_double(statement_, i); }
  std::string text(int i) const override {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, i));
    if (data == nullptr) {
      out_of_memory_check();
      return {};
    }
    return std::string(data, static_cast<size_t>(sqlite3_column_bytes(statement_, i)));
  }
  std::vector<unsigned char> blob(int i) const override {
    const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement_, i));
    if (data == nullptr) {  // NULL, an empty blob, or no memory
      out_of_memory_check();
      return {};
    }
    return std::vector<unsigned char>(data, data + sqlite3_column_bytes(statement_, i));
  }

 private:
  [[noreturn]] void fail() const { throw_error(db_, path_, what_); }
  void check(int result) const {
    if (result != SQLITE_OK) fail();
  }
  // sqlite3_column_text/blob return null both for NULL and when out of memory.
  void out_of_memory_check() const {
    if (sqlite3_errcode(db_) == SQLITE_NOMEM) fail();
  }

  sqlite3* db_;
  const std::string& path_;
  std::string what_;
  sqlite3_stmt* statement_ = nullptr;
};

// A blob opened for incremental I/O.
class Blob : public db::BlobWriter, public db::BlobReader {
 public:
  Blob(sqlite3* db, const std::string& path, const char* table, int64_t rowid, bool write,
       std::string what)
      : db_(db), path_(path), what_(std::move(what)) {
    if (sqlite3_blob_open(db, "main", table, "bytes", rowid, write ? 1 : 0, &blob_) != SQLITE_OK) {
      sqlite3_blob_close(blob_);
      blob_ = nullptr;
      throw_error(db_, path_, what_);
    }
  }
  ~Blob() override { sqlite3_blob_close(blob_); }

  void write(const unsigned char* bytes, size_t n, uint64_t at) override {
    if (sqlite3_blob_write(blob_, bytes, static_cast<int>(n), static_cast<int>(at)) != SQLITE_OK)
      throw_error(db_, path_, what_);
  }
  void close() override {
    const int closed = sqlite3_blob_close(blob_);
    blob_ = nullptr;
    if (closed != SQLITE_OK) throw_error(db_, path_, what_);
  }
  uint64_t size() const override { return static_cast<uint64_t>(sqlite3_blob_bytes(blob_)); }
  void read(unsigned char* out, size_t n, uint64_t at) override {
    if (sqlite3_blob_read(blob_, out, static_cast<int>(n), static_cast<int>(at)) != SQLITE_OK)
      throw_error(db_, path_, what_);
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  std::string what_;
  sqlite3_blob* blob_ = nullptr;
};

// quartz_capture_crc32(blob), for the upgrade of the runs stored before version 3.
void crc32_function(sqlite3_context* context, int, sqlite3_value** arguments) {
  const auto* bytes = static_cast<const unsigned char*>(sqlite3_value_blob(arguments[0]));
  const int size = sqlite3_value_bytes(arguments[0]);
  sqlite3_result_int64(context, capture_crc32({bytes, static_cast<size_t>(size)}));
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

class SqliteConnection : public db::Connection {
 public:
  SqliteConnection(const std::string& path, bool immutable)
      : Connection(path), immutable_(immutable) {}
  ~SqliteConnection() override {
    // Returns SQLITE_OK for any valid handle: statements are RAII, and close_v2 would defer
    // the close past an unfinalized one rather than leak the connection.
    sqlite3_close_v2(db_);
  }

  // Opens the connection (the path, or its immutable URI) with its error codes, busy
  // handler and functions; throws "PATH: cannot open: ...".
  void connect(int flags) {
    const std::string file = immutable_ ? immutable_uri(name()) : name();
    const int opened =
        sqlite3_open_v2(file.c_str(), &db_, flags | (immutable_ ? SQLITE_OPEN_URI : 0), nullptr);
    if (opened != SQLITE_OK) {  // a handle comes back even on most failures
      fail_open(db_ ? describe(db_) : std::string(sqlite3_errstr(opened)));
    }
    if (sqlite3_extended_result_codes(db_, 1) != SQLITE_OK ||
        sqlite3_busy_handler(db_, wait_for_lock, this) != SQLITE_OK ||
        sqlite3_create_function(db_, "quartz_capture_crc32", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                nullptr, crc32_function, nullptr, nullptr) != SQLITE_OK) {
      throw_error(db_, name(), "cannot open");
    }
  }
  sqlite3* handle() const { return db_; }
  bool immutable() const { return immutable_; }

  db::Backend backend() const override { return db::Backend::sqlite; }
  std::unique_ptr<db::Statement> prepare(const std::string& sql, std::string what) override {
    return std::make_unique<SqliteStatement>(db_, name(), sql, std::move(what));
  }
  void exec(const std::string& sql, const std::string& what) override {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
      throw_error(db_, name(), what);
  }
  // BEGIN IMMEDIATE takes the write lock at once, so a concurrent writer waits for the busy
  // timeout instead of failing halfway through.
  void begin_write(const std::string& what) override { exec("BEGIN IMMEDIATE", what); }
  void commit(const std::string& what) override { exec("COMMIT", what); }
  // SQLite may already have rolled back on its own (after SQLITE_FULL, SQLITE_IOERR, ...):
  // only roll back a transaction still open.
  void rollback() noexcept override {
    if (sqlite3_get_autocommit(db_) == 0) {
      static_cast<void>(sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr));
    }
  }
  bool has_table(const std::string& table) override {
    SqliteStatement row(db_, name(),
                        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                        "cannot read the store's tables");
    row.bind(1, table);
    return row.step();
  }
  int64_t table_count() override {
    SqliteStatement count(db_, name(), "SELECT count(*) FROM sqlite_master", "cannot open");
    return count.step() ? count.integer(0) : 0;
  }
  const char* row_id() const override { return "rowid"; }
  uint64_t chunk_bytes() const override { return kChunkBytes; }
  std::unique_ptr<db::BlobWriter> add_chunk(int64_t run_id, const char* kind, int64_t seq,
                                            uint64_t size, const std::string& what) override {
    SqliteStatement insert(
        db_, name(), "INSERT INTO chunks (run_id, kind, seq, bytes) VALUES (?, ?, ?, zeroblob(?))",
        what);
    insert.bind(1, run_id);
    insert.bind(2, std::string(kind));
    insert.bind(3, seq);
    insert.bind(4, static_cast<int64_t>(size));
    insert.step();
    return std::make_unique<Blob>(db_, name(), "chunks", sqlite3_last_insert_rowid(db_), true,
                                  what);
  }
  std::unique_ptr<db::BlobReader> open_blob(const char* table, int64_t id,
                                            const std::string& what) override {
    return std::make_unique<Blob>(db_, name(), table, id, false, what);
  }
  std::unique_ptr<db::Connection> open_reader() const override {
    auto reader = std::make_unique<SqliteConnection>(name(), immutable_);
    reader->connect(SQLITE_OPEN_READONLY);
    return reader;
  }

  [[noreturn]] void fail_open(const std::string& reason) const {
    throw StoreError(name() + ": cannot open: " + reason);
  }

 private:
  // SQLite's busy handler: waits for another process's lock, saying so once.
  static int wait_for_lock(void* opaque, int attempt) {
    auto* connection = static_cast<SqliteConnection*>(opaque);
    const int64_t now = steady_ms();
    if (attempt == 0) connection->waiting_since_ms_ = now;
    const int64_t waited = now - connection->waiting_since_ms_;
    if (waited >= kLockWaitLimitMs) return 0;  // SQLITE_BUSY: "database is locked"
    if (waited >= kSayWaitingAfterMs && !connection->said_waiting_) {
      connection->said_waiting_ = true;
      std::fprintf(stderr, "quartz: %s is locked by another process; waiting for it\n",
                   connection->name().c_str());
    }
    sqlite3_sleep(attempt < 10 ? 1 + attempt * 5 : 50);
    return 1;
  }

  sqlite3* db_ = nullptr;
  const bool immutable_;          // read as a file nobody changes (see db::Access)
  int64_t waiting_since_ms_ = 0;  // steady clock, when the current wait began
  bool said_waiting_ = false;
};

// Opens the store into `db`, which a caller inspects when this throws.
void open_once(const std::string& path, db::Access access,
               const std::function<void(db::Connection&)>& open_schema,
               std::unique_ptr<SqliteConnection>& db) {
  // SQLite itself would only notice a foreign file at its first read, as "file is not a
  // database"; say what it is at once. An empty file is an empty database: it becomes a store.
  std::error_code error;
  const auto bytes = std::filesystem::file_size(path, error);
  if (!error && bytes > 0 && !looks_like_database(path)) {
    throw StoreError(path + ": not a Quartz store");
  }

  db = std::make_unique<SqliteConnection>(path, false);
  if (access == db::Access::read_only) {
    db->connect(SQLITE_OPEN_READONLY);
    try {
      open_schema(*db);
    } catch (const StoreError&) {
      // A store in WAL mode is read through its shared-memory file; in a directory nobody
      // may write, no process can have made or be changing it: read the file as it is.
      const int code = primary_code(db->handle());
      if (code != SQLITE_CANTOPEN && code != SQLITE_READONLY) throw;
      db = std::make_unique<SqliteConnection>(path, true);
      db->connect(SQLITE_OPEN_READONLY);
      open_schema(*db);
    }
    return;
  }

  db->connect(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // SQLite opens a file it may not write read-only, without a word.
  if (sqlite3_db_readonly(db->handle(), "main") == 1) {
    throw ReadOnlyStoreError(path + ": read-only (" + read_only_reason(path) + ")");
  }
  db->exec("PRAGMA foreign_keys = ON", "cannot open");
  try {
    open_schema(*db);
  } catch (const StoreError&) {
    // A file we may write in a directory we may not: WAL's shared-memory file cannot be
    // made there.
    const int code = primary_code(db->handle());
    const std::filesystem::path file(path);
    const auto directory = file.has_parent_path() ? file.parent_path() : ".";
    if (code == SQLITE_READONLY ||
        (code == SQLITE_CANTOPEN && ::access(directory.c_str(), W_OK) != 0)) {
      throw ReadOnlyStoreError(path + ": read-only (" + read_only_reason(path) + ")");
    }
    throw;
  }

  // Only now, once the file is known to be a store: never change another program's database.
  // Where there can be no WAL (some file systems), SQLite keeps its rollback journal, which
  // works too.
  SqliteStatement wal(db->handle(), db->name(), "PRAGMA journal_mode = WAL", "cannot open");
  try {
    while (wal.step()) {
    }
  } catch (const StoreError&) {
    if (primary_code(db->handle()) != SQLITE_READONLY) throw;
  }
}

}  // namespace

std::unique_ptr<db::Connection> open(const std::string& path, db::Access access,
                                     const std::function<void(db::Connection&)>& open_schema) {
  // SQLite answers "locked" at once, without the busy handler, where waiting could
  // deadlock: two processes making a new store at once (two `quartz run`s checking it)
  // both switch it to WAL, each holding the shared lock the other's switch needs. The one
  // refused opens again: by then the store is made.
  const int64_t start = steady_ms();
  for (;;) {
    std::unique_ptr<SqliteConnection> db;
    try {
      open_once(path, access, open_schema, db);
      return db;
    } catch (const StoreError&) {
      if (primary_code(db ? db->handle() : nullptr) != SQLITE_BUSY ||
          steady_ms() - start >= kLockWaitLimitMs) {
        throw;
      }
    }
    sqlite3_sleep(10);
  }
}

bool looks_like_database(const std::string& path) {
  static constexpr char kHeader[16] = "SQLite format 3";  // with its NUL: 16 bytes
  std::ifstream in(path, std::ios::binary);
  char header[sizeof kHeader] = {};
  in.read(header, sizeof header);
  return in.gcount() == sizeof header && std::memcmp(header, kHeader, sizeof header) == 0;
}

std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {  // RFC 3986: what would end or escape the path
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const auto byte = static_cast<unsigned char>(c);
      uri += {'%', kHex[byte >> 4], kHex[byte & 15]};
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

}  // namespace quartz::profile::sqlite
