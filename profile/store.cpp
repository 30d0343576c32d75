#include "profile/store.h"

#include <sqlite3.h>
#include <time.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "profile/capture.h"
#include "profile/trace_reader.h"

namespace quartz::profile {

namespace {

constexpr int64_t kSchemaVersion = 2;
constexpr const char* kApplication = "quartz";
// How long a writer waits for another process's transaction before giving up.
constexpr int kBusyTimeoutMs = 10'000;

// Real-valued columns have no NOT NULL: SQLite stores NaN as NULL, read back as 0.
constexpr const char* kSchemaSql = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  program TEXT NOT NULL,
  arguments TEXT NOT NULL,
  start_realtime_ns INTEGER NOT NULL,
  host TEXT NOT NULL,
  topology TEXT NOT NULL,
  elapsed_s REAL,
  period_s REAL,
  torn_rate REAL,
  dilation_removed_s REAL,
  sampler_cpu_s REAL,
  processors INTEGER NOT NULL,
  samples INTEGER NOT NULL,
  reserved_core INTEGER NOT NULL,
  final INTEGER NOT NULL,
  capture_path TEXT NOT NULL,
  options TEXT NOT NULL,
  capture BLOB NOT NULL
);
CREATE TABLE symbols (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  address INTEGER NOT NULL,
  function TEXT NOT NULL,
  file TEXT NOT NULL,
  line INTEGER NOT NULL,
  module TEXT NOT NULL,
  PRIMARY KEY (run_id, address)
) WITHOUT ROWID;
CREATE TABLE procedures (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  location TEXT NOT NULL,
  normalized_s REAL,
  normalized_self_s REAL,
  processor_s REAL,
  calls INTEGER NOT NULL
);
CREATE INDEX procedures_by_run ON procedures(run_id);
CREATE INDEX procedures_by_name ON procedures(name);
CREATE TABLE locks (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  normalized_s REAL,
  wait_s REAL,
  hold_s REAL,
  acquisitions INTEGER NOT NULL,
  contended INTEGER NOT NULL
);
CREATE INDEX locks_by_run ON locks(run_id);
CREATE INDEX locks_by_name ON locks(name);
CREATE TABLE threads (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  thread_index INTEGER NOT NULL,
  name TEXT NOT NULL,
  normalized_s REAL,
  busy_s REAL,
  spinning_s REAL,
  blocked_s REAL,
  ready_s REAL
);
CREATE INDEX threads_by_run ON threads(run_id);
CREATE INDEX threads_by_name ON threads(name);
)sql";

// Version 2 adds traces (`quartz run --trace`) and the predictions made from them.
constexpr const char* kSchemaSql2 = R"sql(
CREATE TABLE traces (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  bytes BLOB NOT NULL
);
CREATE TABLE predictions (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  made_realtime_ns INTEGER NOT NULL,
  question TEXT NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX predictions_by_run ON predictions(run_id);
)sql";

constexpr const char* kSummaryColumns =
    "id, program, arguments, start_realtime_ns, host, topology, elapsed_s, period_s, torn_rate, "
    "dilation_removed_s, sampler_cpu_s, processors, samples, reserved_core, final, capture_path, "
    "options";

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

[[noreturn]] void fail(sqlite3* db, const std::string& path, const std::string& what) {
  if ((sqlite3_extended_errcode(db) & 0xff) == SQLITE_NOTADB) {
    throw StoreError(path + ": not a Quartz store");
  }
  throw StoreError(path + ": " + what + ": " + describe(db));
}

void exec(sqlite3* db, const std::string& path, const char* sql, const std::string& what) {
  if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, path, what);
}

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
  [[noreturn]] void fail() const { quartz::profile::fail(db_, path_, what_); }
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

std::string run_name(int64_t run_id) {
  return "run " + std::to_string(run_id);
}

// A run-section value as an exact unsigned integer (Run::number goes through double, which
// rounds nanosecond timestamps); 0 when absent or not a decimal integer.
uint64_t unsigned_value(const Run& run, const char* key) {
  const std::string text = run.text(key);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : 0;
}

std::string local_time(int64_t realtime_ns) {
  if (realtime_ns <= 0) return {};
  tzset();  // POSIX: localtime_r need not read TZ itself
  const time_t seconds = static_cast<time_t>(realtime_ns / 1'000'000'000);
  struct tm local;
  if (localtime_r(&seconds, &local) == nullptr) return {};
  char text[64];
  const size_t n = strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  return std::string(text, n);
}

// The columns of kSummaryColumns, in order.
RunSummary read_summary(Statement& row) {
  RunSummary s;
  s.id = row.integer(0);
  s.program = row.text(1);
  s.arguments = row.text(2);
  s.started = local_time(row.integer(3));
  s.host = row.text(4);
  s.topology = row.text(5);
  s.elapsed_s = row.real(6);
  s.period_s = row.real(7);
  s.torn_rate = row.real(8);
  s.dilation_removed_s = row.real(9);
  s.sampler_cpu_s = row.real(10);
  s.processors = static_cast<uint32_t>(row.integer(11));
  s.samples = row.unsigned_integer(12);
  s.reserved_core = row.integer(13) != 0;
  s.final = row.integer(14) != 0;
  s.capture_path = row.text(15);
  s.options = row.text(16);
  return s;
}

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
    throw StoreError(path_ +
                     ": cannot open: " + (db ? describe(db) : std::string(sqlite3_errstr(opened))));
  }
  if (sqlite3_extended_result_codes(db, 1) != SQLITE_OK ||
      sqlite3_busy_timeout(db, kBusyTimeoutMs) != SQLITE_OK) {
    fail(db, path_, "cannot open");
  }
  exec(db, path_, "PRAGMA foreign_keys = ON", "cannot open");
  check_or_create_schema();

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

void Store::check_or_create_schema() {
  sqlite3* db = db_.get();
  const auto table_count = [&](const char* sql) {
    Statement count(db, path_, sql, "cannot open");
    return count.step() ? count.integer(0) : 0;
  };
  if (table_count("SELECT count(*) FROM sqlite_master") == 0) {
    Transaction transaction(db, path_, "cannot create the store");
    // Another process may have created it while we waited for the lock.
    if (table_count("SELECT count(*) FROM sqlite_master") == 0) {
      exec(db, path_, kSchemaSql, "cannot create the store");
      exec(db, path_, kSchemaSql2, "cannot create the store");
      Statement meta(db, path_, "INSERT INTO meta (key, value) VALUES (?, ?), (?, ?)",
                     "cannot create the store");
      meta.bind(1, std::string("application"));
      meta.bind(2, std::string(kApplication));
      meta.bind(3, std::string("schema_version"));
      meta.bind(4, kSchemaVersion);
      meta.step();
    }
    transaction.commit();
  }

  const StoreError not_a_store(path_ + ": not a Quartz store");
  if (table_count("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'") ==
      0) {
    throw not_a_store;
  }
  sqlite3_stmt* probe = nullptr;
  const char* sql = "SELECT key, value FROM meta WHERE key IN ('application', 'schema_version')";
  const int prepared = sqlite3_prepare_v2(db, sql, -1, &probe, nullptr);
  sqlite3_finalize(probe);
  if (prepared == SQLITE_ERROR) throw not_a_store;  // a "meta" table of another shape
  if (prepared != SQLITE_OK) fail(db, path_, "cannot open");

  Statement meta(db, path_, sql, "cannot open");
  std::string application;
  std::optional<int64_t> version;
  while (meta.step()) {
    const std::string key = meta.text(0);
    if (key == "application") {
      application = meta.text(1);
    } else if (meta.is_integer(1)) {
      version = meta.integer(1);
    }
  }
  if (application != kApplication || !version) throw not_a_store;
  if (*version == 1) {
    Transaction transaction(db, path_, "cannot upgrade the store");
    exec(db, path_, kSchemaSql2, "cannot upgrade the store");
    exec(db, path_, "UPDATE meta SET value = 2 WHERE key = 'schema_version'", "cannot upgrade the store");
    transaction.commit();
    version = 2;
  }
  if (*version != kSchemaVersion) {
    throw StoreError(path_ + ": store schema version " + std::to_string(*version) +
                     ", this Quartz reads version " + std::to_string(kSchemaVersion));
  }
}

int64_t Store::add_run(const std::vector<unsigned char>& capture_bytes, const Run& run,
                       const std::string& capture_path, const std::string& options) {
  using namespace capture::run_keys;
  sqlite3* db = db_.get();
  const std::string what = "cannot add a run";

  std::string arguments = run.text(kArguments);
  for (char& c : arguments) {
    if (c == '\x1f') c = ' ';
  }
  const uint64_t start_ns = unsigned_value(run, kStartRealtimeNs);

  Transaction transaction(db, path_, what);
  Statement insert(db, path_,
                   "INSERT INTO runs (program, arguments, start_realtime_ns, host, topology, "
                   "elapsed_s, period_s, torn_rate, dilation_removed_s, sampler_cpu_s, "
                   "processors, samples, reserved_core, final, capture_path, options, capture) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   what);
  insert.bind(1, run.text(kProgram));
  insert.bind(2, arguments);
  // Timestamps past 2262 do not fit: 0, "not recorded".
  insert.bind(3, start_ns <= uint64_t{INT64_MAX} ? static_cast<int64_t>(start_ns) : int64_t{0});
  insert.bind(4, run.text(kHost));
  insert.bind(5, run.text(kTopology));
  insert.bind(6, run.number(kElapsedNs) * 1e-9);
  insert.bind(7, run.number(kPeriodNs) * 1e-9);
  insert.bind(8, run.torn_rate());
  insert.bind(9, run.number(kDilationRemovedNs) * 1e-9);
  insert.bind(10, run.number(kSamplerCpuNs) * 1e-9);
  insert.bind(11, run.processors);
  insert.bind(12, unsigned_value(run, kSamples));
  insert.bind(13, run.text(kReserve) == "yes");
  insert.bind(14, run.final);
  insert.bind(15, capture_path);
  insert.bind(16, options);
  insert.bind_blob(17, capture_bytes);
  insert.step();
  const int64_t run_id = sqlite3_last_insert_rowid(db);

  Statement symbol(db, path_,
                   "INSERT INTO symbols (run_id, address, function, file, line, module) "
                   "VALUES (?, ?, ?, ?, ?, ?)",
                   what);
  for (const auto& [address, s] : run.symbols) {
    symbol.bind(1, run_id);
    symbol.bind(2, address);
    symbol.bind(3, s.function);
    symbol.bind(4, s.file);
    symbol.bind(5, s.line);
    symbol.bind(6, s.module);
    symbol.step();
    symbol.reset();
  }
  transaction.commit();
  return run_id;
}

void Store::add_metrics(int64_t run_id, const std::vector<ProcedureMetric>& procedures,
                        const std::vector<LockMetric>& locks,
                        const std::vector<ThreadMetric>& threads) {
  sqlite3* db = db_.get();
  const std::string what = "cannot add metrics of " + run_name(run_id);
  Transaction transaction(db, path_, what);
  {
    Statement exists(db, path_, "SELECT 1 FROM runs WHERE id = ?", what);
    exists.bind(1, run_id);
    if (!exists.step()) throw StoreError(path_ + ": no " + run_name(run_id));
  }
  // Metrics are replaced as a whole: a new analysis of a run supersedes the old one.
  for (const char* sql :
       {"DELETE FROM procedures WHERE run_id = ?", "DELETE FROM locks WHERE run_id = ?",
        "DELETE FROM threads WHERE run_id = ?"}) {
    Statement remove(db, path_, sql, what);
    remove.bind(1, run_id);
    remove.step();
  }

  Statement procedure(db, path_,
                      "INSERT INTO procedures (run_id, name, location, normalized_s, "
                      "normalized_self_s, processor_s, calls) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      what);
  for (const ProcedureMetric& p : procedures) {
    procedure.bind(1, run_id);
    procedure.bind(2, p.name);
    procedure.bind(3, p.location);
    procedure.bind(4, p.normalized_s);
    procedure.bind(5, p.normalized_self_s);
    procedure.bind(6, p.processor_s);
    procedure.bind(7, p.calls);
    procedure.step();
    procedure.reset();
  }
  Statement lock(db, path_,
                 "INSERT INTO locks (run_id, name, kind, normalized_s, wait_s, hold_s, "
                 "acquisitions, contended) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 what);
  for (const LockMetric& l : locks) {
    lock.bind(1, run_id);
    lock.bind(2, l.name);
    lock.bind(3, l.kind);
    lock.bind(4, l.normalized_s);
    lock.bind(5, l.wait_s);
    lock.bind(6, l.hold_s);
    lock.bind(7, l.acquisitions);
    lock.bind(8, l.contended);
    lock.step();
    lock.reset();
  }
  Statement thread(db, path_,
                   "INSERT INTO threads (run_id, thread_index, name, normalized_s, busy_s, "
                   "spinning_s, blocked_s, ready_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                   what);
  for (const ThreadMetric& t : threads) {
    thread.bind(1, run_id);
    thread.bind(2, t.index);
    thread.bind(3, t.name);
    thread.bind(4, t.normalized_s);
    thread.bind(5, t.busy_s);
    thread.bind(6, t.spinning_s);
    thread.bind(7, t.blocked_s);
    thread.bind(8, t.ready_s);
    thread.step();
    thread.reset();
  }
  transaction.commit();
}

std::vector<RunSummary> Store::list() const {
  const std::string sql = std::string("SELECT ") + kSummaryColumns + " FROM runs ORDER BY id";
  Statement rows(db_.get(), path_, sql.c_str(), "cannot list the runs");
  std::vector<RunSummary> runs;
  while (rows.step()) runs.push_back(read_summary(rows));
  return runs;
}

std::optional<RunSummary> Store::summary(int64_t run_id) const {
  const std::string sql = std::string("SELECT ") + kSummaryColumns + " FROM runs WHERE id = ?";
  Statement row(db_.get(), path_, sql.c_str(), "cannot read " + run_name(run_id));
  row.bind(1, run_id);
  if (!row.step()) return std::nullopt;
  return read_summary(row);
}

std::optional<int64_t> Store::latest() const {
  Statement row(db_.get(), path_, "SELECT max(id) FROM runs", "cannot list the runs");
  if (!row.step() || row.is_null(0)) return std::nullopt;
  return row.integer(0);
}

Run Store::load(int64_t run_id) const {
  sqlite3* db = db_.get();
  const std::string what = "cannot load " + run_name(run_id);
  Run run;
  {
    Statement row(db, path_, "SELECT capture FROM runs WHERE id = ?", what);
    row.bind(1, run_id);
    if (!row.step()) throw StoreError(path_ + ": no " + run_name(run_id));
    try {
      run = parse_capture(row.blob(0), "capture");
    } catch (const CaptureError& e) {
      throw StoreError(path_ + ": " + run_name(run_id) + ": " + e.what());
    }
  }
  Statement symbols(db, path_,
                    "SELECT address, function, file, line, module FROM symbols WHERE run_id = ?",
                    what);
  symbols.bind(1, run_id);
  while (symbols.step()) {
    Symbol& s = run.symbols[symbols.unsigned_integer(0)];
    s.function = symbols.text(1);
    s.file = symbols.text(2);
    s.line = static_cast<int>(symbols.integer(3));
    s.module = symbols.text(4);
  }
  return run;
}

void Store::add_trace(int64_t run_id, const std::string& trace_path) {
  sqlite3* db = db_.get();
  const std::string what = "cannot add the trace of " + run_name(run_id);
  std::ifstream in(trace_path, std::ios::binary);
  std::error_code error;
  const auto size = std::filesystem::file_size(trace_path, error);
  if (!in || error) throw StoreError(trace_path + ": cannot open: " + std::strerror(errno));
  Transaction transaction(db, path_, what);
  {
    Statement insert(db, path_, "INSERT OR REPLACE INTO traces (run_id, bytes) VALUES (?, zeroblob(?))",
                     what);
    insert.bind(1, run_id);
    insert.bind(2, static_cast<int64_t>(size));
    insert.step();
  }
  // Streamed in pieces: a trace may be far larger than the memory we want to use.
  sqlite3_blob* blob = nullptr;
  if (sqlite3_blob_open(db, "main", "traces", "bytes", run_id, 1, &blob) != SQLITE_OK) {
    sqlite3_blob_close(blob);
    fail(db, path_, what);
  }
  std::vector<char> buffer(1 << 20);
  int64_t at = 0;
  while (at < static_cast<int64_t>(size)) {
    in.read(buffer.data(), static_cast<std::streamsize>(std::min<uint64_t>(buffer.size(), size - at)));
    const auto n = static_cast<int>(in.gcount());
    if (n <= 0 || sqlite3_blob_write(blob, buffer.data(), n, static_cast<int>(at)) != SQLITE_OK) {
      sqlite3_blob_close(blob);
      if (n <= 0) throw StoreError(trace_path + ": cannot read");
      fail(db, path_, what);
    }
    at += n;
  }
  sqlite3_blob_close(blob);
  transaction.commit();
}

bool Store::has_trace(int64_t run_id) const {
  Statement row(db_.get(), path_, "SELECT 1 FROM traces WHERE run_id = ?", "cannot read " + run_name(run_id));
  row.bind(1, run_id);
  return row.step();
}

namespace {
// A stored trace read in pieces, through a connection of its own.
class StoredTrace : public TraceSource {
 public:
  StoredTrace(const std::string& path, int64_t run_id)
      : name_(path + ": " + run_name(run_id) + ": trace") {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
        sqlite3_blob_open(db, "main", "traces", "bytes", run_id, 0, &blob_) != SQLITE_OK) {
      const std::string message = db ? describe(db) : "cannot open";
      sqlite3_close_v2(db);
      throw StoreError(path + ": cannot read the trace of " + run_name(run_id) + ": " + message);
    }
    db_ = db;
    size_ = sqlite3_blob_bytes(blob_);
  }
  ~StoredTrace() override {
    sqlite3_blob_close(blob_);
    sqlite3_close_v2(db_);
  }
  size_t read(void* out, size_t n) override {
    const int k = static_cast<int>(std::min<int64_t>(static_cast<int64_t>(n), size_ - at_));
    if (k <= 0 || sqlite3_blob_read(blob_, out, k, static_cast<int>(at_)) != SQLITE_OK) return 0;
    at_ += k;
    return static_cast<size_t>(k);
  }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  sqlite3* db_ = nullptr;
  sqlite3_blob* blob_ = nullptr;
  int64_t size_ = 0, at_ = 0;
};
}  // namespace

std::unique_ptr<TraceSource> Store::open_trace(int64_t run_id) const {
  if (!has_trace(run_id)) throw StoreError(path_ + ": " + run_name(run_id) + " has no trace");
  return std::make_unique<StoredTrace>(path_, run_id);
}

void Store::add_prediction(int64_t run_id, const std::string& question, const std::string& json) {
  Statement insert(db_.get(), path_,
                   "INSERT INTO predictions (run_id, made_realtime_ns, question, json) VALUES (?, ?, ?, ?)",
                   "cannot store a prediction for " + run_name(run_id));
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  insert.bind(1, run_id);
  insert.bind(2, static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec);
  insert.bind(3, question);
  insert.bind(4, json);
  insert.step();
}

std::vector<StoredPrediction> Store::predictions(int64_t run_id) const {
  Statement rows(db_.get(), path_,
                 "SELECT made_realtime_ns, question, json FROM predictions WHERE run_id = ? "
                 "ORDER BY rowid",
                 "cannot read the predictions of " + run_name(run_id));
  rows.bind(1, run_id);
  std::vector<StoredPrediction> out;
  while (rows.step()) out.push_back({local_time(rows.integer(0)), rows.text(1), rows.text(2)});
  return out;
}

bool Store::looks_like_store(const std::string& path) {
  static constexpr char kHeader[16] = "SQLite format 3";  // with its NUL: 16 bytes
  std::ifstream in(path, std::ios::binary);
  char header[sizeof kHeader] = {};
  in.read(header, sizeof header);
  return in.gcount() == sizeof header && std::memcmp(header, kHeader, sizeof header) == 0;
}

}  // namespace quartz::profile
