// The store's SQLite wrapper: prepared statements and transactions that report every
// failure as a StoreError naming the store's file and what the caller was doing.
//
// Hand-written rather than SQLiteCpp (Debian 12: libsqlitecpp-dev 3.2.1): the store also
// streams traces through SQLite's incremental blob I/O and quotes the system's errno in
// messages, which SQLiteCpp does not wrap, so both APIs would be in use; and a new build
// dependency would replace about 130 lines.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profile/store_error.h"

namespace quartz::profile::sqlite {

// SQLite's message for the last error on `db`, with the system's reason when a file
// operation failed ("unable to open database file (Permission denied)").
std::string describe(sqlite3* db);
// Throws "PATH: WHAT: message", or "PATH: not a Quartz store" when SQLite found no database.
[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& what);
void exec(sqlite3* db, const std::string& path, const char* sql, const std::string& what);
// True when the store has the table: an older store, opened read only, may lack it.
bool has_table(sqlite3* db, const std::string& path, const std::string& name);
// `path` as a file: URI that opens it immutable (open it with SQLITE_OPEN_URI): no locks,
// no shared-memory file, for a file on a read-only file system or in a read-only directory.
std::string immutable_uri(const std::string& path);

// One prepared statement; `what` says what the caller was doing, for error messages.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const char* sql, std::string what)
      : db_(db), path_(path), what_(std::move(what)) {
    if (sqlite3_prepare_v2(db_, sql, -1, &statement_, nullptr) != SQLITE_OK) fail();
  }
  // The statement's last error, if any, was reported by step().
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameters are numbered from 1.
  void bind(int i, int64_t value) { check(sqlite3_bind_int64(statement_, i, value)); }
  void bind(int i, uint64_t value) { bind(i, static_cast<int64_t>(value)); }  // bit pattern
  void bind(int i, uint32_t value) { bind(i, int64_t{value}); }
  void bind(int i, int value) { bind(i, int64_t{value}); }
  void bind(int i, bool value) { bind(i, int64_t{value ? 1 : 0}); }
  void bind(int i, double value) { check(sqlite3_bind_double(statement_, i, value)); }
  void bind(int i, const std::string& value) {
    check(sqlite3_bind_text64(statement_, i, value.data(), value.size(), SQLITE_TRANSIENT,
                              SQLITE_UTF8));
  }
  // Not copied: `bytes` must outlive the statement's next step().
  void bind_blob(int i, const std::vector<unsigned char>& bytes) {
    check(bytes.empty()
              ? sqlite3_bind_zeroblob(statement_, i, 0)
              : sqlite3_bind_blob64(statement_, i, bytes.data(), bytes.size(), SQLITE_STATIC));
  }

  // True when a row is ready; false when the statement has finished.
  bool step() {
    const int result = sqlite3_step(statement_);
    if (result == SQLITE_ROW) return true;
    if (result == SQLITE_DONE) return false;
    fail();
  }
  // Makes the statement ready to run again with new parameters.
  void reset() {
    check(sqlite3_reset(statement_));
    check(sqlite3_clear_bindings(statement_));
  }

  // Columns are numbered from 0; NULL reads as 0 or "".
  bool is_null(int i) const { return sqlite3_column_type(statement_, i) == SQLITE_NULL; }
  bool is_integer(int i) const { return sqlite3_column_type(statement_, i) == SQLITE_INTEGER; }
  int64_t integer(int i) const { return sqlite3_column_int64(statement_, i); }
  uint64_t unsigned_integer(int i) const { return static_cast<uint64_t>(integer(i)); }
  double real(int i) const { return sqlite3_column_double(statement_, i); }
  std::string text(int i) {
    const auto* data = reinterpret_cast<const char*>(sqlite3_column_text(statement_, i));
    if (data == nullptr) {
      out_of_memory_check();
      return {};
    }
    return std::string(data, static_cast<size_t>(sqlite3_column_bytes(statement_, i)));
  }
  std::vector<unsigned char> blob(int i) {
    const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement_, i));
    if (data == nullptr) {  // NULL, an empty blob, or no memory
      out_of_memory_check();
      return {};
    }
    return std::vector<unsigned char>(data, data + sqlite3_column_bytes(statement_, i));
  }

 private:
  [[noreturn]] void fail() const { sqlite::fail(db_, path_, what_); }
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

// BEGIN IMMEDIATE takes the write lock at once, so a concurrent writer waits for the busy
// timeout instead of failing halfway through. Rolled back unless committed.
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& path, const std::string& what)
      : db_(db), path_(path), what_(what) {
    exec(db_, path_, "BEGIN IMMEDIATE", what_);
  }
  // SQLite may already have rolled back on its own (after SQLITE_FULL, SQLITE_IOERR, ...):
  // only roll back a transaction still open. The result is deliberately unused: this runs
  // while an error is already on its way, and SQLite rolls back an open transaction anyway
  // when the connection closes.
  ~Transaction() {
    if (!committed_ && sqlite3_get_autocommit(db_) == 0) {
      static_cast<void>(sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr));
    }
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    exec(db_, path_, "COMMIT", what_);
    committed_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  std::string what_;
  bool committed_ = false;
};

}  // namespace quartz::profile::sqlite
