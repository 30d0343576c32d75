// The store's database, whichever it is: a connection, its prepared statements and
// transactions, and the blobs a run's chunks are kept in, each reporting every failure as a
// StoreError that names the store and what the caller was doing. The store (store.h) is
// written once over this; sqlite.h (a file) and postgres.h (a server) implement it.
//
// The statements are SQL both databases take: `?` parameters (postgres.cpp numbers them),
// INSERT ... ON CONFLICT (...) DO UPDATE, INSERT ... RETURNING, and row_id() where a row's
// insertion order or own key is needed (SQLite's rowid, the server's identity column).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "profile/store_error.h"

namespace quartz::profile::db {

enum class Backend { sqlite, postgresql };

// How a store is opened. Reading never creates, upgrades or locks out anything; a file is
// read even where it cannot be written (a read-only file, directory or file system).
enum class Access { read_write, read_only };

// One statement; parameters are numbered from 1, columns from 0.
class Statement {
 public:
  virtual ~Statement() = default;

  virtual void bind(int i, int64_t value) = 0;
  virtual void bind(int i, double value) = 0;  // NaN is stored as NULL (read back as 0)
  virtual void bind(int i, const std::string& value) = 0;
  // Not copied: `bytes` must outlive the statement's next step().
  virtual void bind_blob(int i, std::span<const unsigned char> bytes) = 0;
  void bind(int i, uint64_t value) { bind(i, static_cast<int64_t>(value)); }  // bit pattern
  void bind(int i, uint32_t value) { bind(i, int64_t{value}); }
  void bind(int i, int value) { bind(i, int64_t{value}); }
  void bind(int i, bool value) { bind(i, int64_t{value ? 1 : 0}); }

  // True when a row is ready; false when the statement has finished.
  virtual bool step() = 0;
  // Makes the statement ready to run again with new parameters.
  virtual void reset() = 0;

  // NULL reads as 0 or "".
  virtual bool is_null(int i) const = 0;
  virtual int64_t integer(int i) const = 0;
  virtual double real(int i) const = 0;
  virtual std::string text(int i) const = 0;
  virtual std::vector<unsigned char> blob(int i) const = 0;
  uint64_t unsigned_integer(int i) const { return static_cast<uint64_t>(integer(i)); }
};

// A blob being written at its creation, of the size it was made with.
class BlobWriter {
 public:
  virtual ~BlobWriter() = default;
  virtual void write(const unsigned char* bytes, size_t n, uint64_t at) = 0;
  virtual void close() = 0;  // the blob complete; throws when it could not be stored
};

// A stored blob read in pieces.
class BlobReader {
 public:
  virtual ~BlobReader() = default;
  virtual uint64_t size() const = 0;
  virtual void read(unsigned char* out, size_t n, uint64_t at) = 0;
};

class Connection {
 public:
  virtual ~Connection() = default;

  virtual Backend backend() const = 0;
  // The store as messages name it: the file's path, or the server's URI without its password.
  const std::string& name() const { return name_; }

  virtual std::unique_ptr<Statement> prepare(const std::string& sql, std::string what) = 0;
  // One statement or several separated by semicolons, without parameters or rows.
  virtual void exec(const std::string& sql, const std::string& what) = 0;

  // A transaction that writes: it excludes every other writer of the store from its start,
  // so that what it reads stays true until it commits (SQLite's BEGIN IMMEDIATE).
  virtual void begin_write(const std::string& what) = 0;
  virtual void commit(const std::string& what) = 0;
  // Rolls back a transaction still open, quietly (an error is already on its way).
  virtual void rollback() noexcept = 0;

  virtual bool has_table(const std::string& table) = 0;
  virtual int64_t table_count() = 0;  // the database's tables, Quartz's or not
  // A row's own integer key: "rowid" for SQLite, the identity column "id" on a server.
  virtual const char* row_id() const = 0;

  // The size of the pieces a run's large blobs are kept in (store_chunks.h).
  virtual uint64_t chunk_bytes() const = 0;
  // Inserts a chunks row whose blob of `size` bytes is written next; call inside a
  // transaction.
  virtual std::unique_ptr<BlobWriter> add_chunk(int64_t run_id, const char* kind, int64_t seq,
                                                uint64_t size, const std::string& what) = 0;
  // The blob in column "bytes" of the row of `table` whose row_id() is `id`.
  virtual std::unique_ptr<BlobReader> open_blob(const char* table, int64_t id,
                                                const std::string& what) = 0;
  // Another connection to the same store, for reading alongside this one (a trace streamed
  // while the store is queried).
  virtual std::unique_ptr<Connection> open_reader() const = 0;

  [[noreturn]] void fail(const std::string& what, const std::string& reason) const {
    throw StoreError(name_ + ": " + what + ": " + reason);
  }

 protected:
  explicit Connection(std::string name) : name_(std::move(name)) {}

 private:
  friend class Transaction;
  std::string name_;
  int transactions_ = 0;  // open Transaction objects, the outermost the database's
};

// begin_write() ... commit(), rolled back unless committed. One inside another is part of
// it: only the outermost begins, commits or rolls back (a run stored with its metrics and
// trace, each of which is a transaction alone).
class Transaction {
 public:
  Transaction(Connection& db, std::string what) : db_(db), what_(std::move(what)) {
    if (db_.transactions_ == 0) db_.begin_write(what_);
    ++db_.transactions_;
  }
  ~Transaction() {
    if (--db_.transactions_ == 0 && !committed_) db_.rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  void commit() {
    if (db_.transactions_ == 1) db_.commit(what_);
    committed_ = true;
  }

 private:
  Connection& db_;
  std::string what_;
  bool committed_ = false;
};

}  // namespace quartz::profile::db
