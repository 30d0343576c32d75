#include "profile/postgres.h"

#include <endian.h>
#include <libpq-fe.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace quartz::profile::postgres {

namespace {

// The types of pg_type whose binary form the store reads.
constexpr Oid kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kOid = 26, kFloat4 = 700,
              kFloat8 = 701;

// The advisory lock every writing transaction takes first ("QUARTZ" in ASCII).
constexpr const char* kTakeWriterLock = "SELECT pg_advisory_xact_lock(89498622136922)";

struct ClearResult {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ClearResult>;

// The first line of a libpq message, without its trailing newline: libpq adds lines ("Is
// the server running locally...") that a one-line error leaves out.
std::string first_line(const char* message) {
  std::string line = message ? message : "";
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line.empty() ? "unknown error" : line;
}

// Why a command failed: the server's primary message, else libpq's (a connection lost).
std::string describe(PGconn* conn, const PGresult* result) {
  if (result != nullptr) {
    if (const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY)) return primary;
  }
  return first_line(PQerrorMessage(conn));
}

bool succeeded(const PGresult* result) {
  const ExecStatusType status = result ? PQresultStatus(result) : PGRES_FATAL_ERROR;
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

// The store's `?` parameters as the server's $1, $2, ... (none is inside a quoted literal).
std::string number_parameters(const std::string& sql, int& count) {
  std::string out;
  bool quoted = false;
  count = 0;
  for (const char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += "$" + std::to_string(++count);
    } else {
      out += c;
    }
  }
  return out;
}

uint64_t big_endian(const char* bytes, int n) {
  uint64_t value = 0;
  for (int i = 0; i < n; ++i) value = value << 8 | static_cast<unsigned char>(bytes[i]);
  return value;
}

// A statement the session asked before is prepared on the server and executed by name; one
// asked for the first time goes with its parameters in one message (PQexecParams), as most
// of a command's are asked once: a round trip each instead of two.
class PgStatement : public db::Statement {
 public:
  // `sql` prepared on the server as `name`, or sent with each execution when `name` is "".
  PgStatement(PGconn* conn, const std::string& store, const std::string& name,
              const std::string& sql, std::string what)
      : conn_(conn), store_(store), name_(name), what_(std::move(what)) {
    int count = 0;
    sql_ = number_parameters(sql, count);
    if (!name_.empty()) {
      Result prepared(PQprepare(conn_, name_.c_str(), sql_.c_str(), 0, nullptr));
      if (!succeeded(prepared.get())) fail(prepared.get());
    }
    params_.resize(static_cast<size_t>(count));
  }
  // The statement prepared before as `name`, of `parameters` parameters.
  PgStatement(PGconn* conn, const std::string& store, const std::string& name, int parameters,
              std::string what)
      : conn_(conn), store_(store), name_(name), what_(std::move(what)) {
    params_.resize(static_cast<size_t>(parameters));
  }
  const std::string& prepared_name() const { return name_; }
  int parameters() const { return static_cast<int>(params_.size()); }

  void bind(int i, int64_t value) override { param(i).text = std::to_string(value); }
  void bind(int i, double value) override {
    Param& p = param(i);
    if (std::isnan(value)) {  // NULL, as SQLite stores it
      p.null = true;
      return;
    }
    if (std::isinf(value)) {
      p.text = value > 0 ? "Infinity" : "-Infinity";
      return;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);  // exact
    p.text = text;
  }
  void bind(int i, const std::string& value) override { param(i).text = value; }
  void bind_blob(int i, std::span<const unsigned char> bytes) override {
    Param& p = param(i);
    p.blob = bytes;
    p.is_blob = true;
  }

  bool step() override {
    if (!result_) execute();
    return ++row_ < PQntuples(result_.get());
  }
  void reset() override {
    result_.reset();
    row_ = -1;
    for (Param& p : params_) p = Param();
  }

  bool is_null(int i) const override { return PQgetisnull(result_.get(), row_, i) != 0; }
  int64_t integer(int i) const override {
    if (is_null(i)) return 0;
    const char* value = PQgetvalue(result_.get(), row_, i);
    switch (PQftype(result_.get(), i)) {
      case kInt8:
        return static_cast<int64_t>(big_endian(value, 8));
      case kInt4:
      case kOid:
        return static_cast<int32_t>(big_endian(value, 4));
      case kInt2:
        return static_cast<int16_t>(big_endian(value, 2));
      case kBool:
        return value[0] != 0;
      case kFloat8:
      case kFloat4:
        return static_cast<int64_t>(real(i));
      default:
        return std::strtoll(text(i).c_str(), nullptr, 10);
    }
  }
  double real(int i) const override {
    if (is_null(i)) return 0;
    const char* value = PQgetvalue(result_.get(), row_, i);
    switch (PQftype(result_.get(), i)) {
      case kFloat8: {
        const uint64_t bits = big_endian(value, 8);
        double out;
        std::memcpy(&out, &bits, sizeof out);
        return out;
      }
      case kFloat4: {
        const auto bits = static_cast<uint32_t>(big_endian(value, 4));
        float out;
        std::memcpy(&out, &bits, sizeof out);
        return out;
      }
      default:
        return static_cast<double>(integer(i));
    }
  }
  std::string text(int i) const override {
    if (is_null(i)) return {};
    const Oid type = PQftype(result_.get(), i);
    if (type == kInt8 || type == kInt4 || type == kInt2 || type == kOid || type == kBool) {
      return std::to_string(integer(i));
    }
    return std::string(PQgetvalue(result_.get(), row_, i),
                       static_cast<size_t>(PQgetlength(result_.get(), row_, i)));
  }
  std::vector<unsigned char> blob(int i) const override {
    const auto* data = reinterpret_cast<const unsigned char*>(PQgetvalue(result_.get(), row_, i));
    return std::vector<unsigned char>(data, data + PQgetlength(result_.get(), row_, i));
  }

 private:
  struct Param {
    std::string text;
    std::span<const unsigned char> blob;
    bool is_blob = false, null = false;
  };
  Param& param(int i) {
    if (i < 1 || static_cast<size_t>(i) > params_.size()) {
      throw StoreError(store_ + ": " + what_ + ": no parameter " + std::to_string(i));
    }
    return params_[static_cast<size_t>(i - 1)];
  }
  void execute() {
    std::vector<const char*> values;
    std::vector<int> lengths, formats;
    for (const Param& p : params_) {
      const bool blob = p.is_blob && !p.null;
      // An empty blob is bytes all the same: a null pointer would be NULL.
      values.push_back(p.null ? nullptr
                       : blob ? (p.blob.empty() ? "" : reinterpret_cast<const char*>(p.blob.data()))
                              : p.text.c_str());
      lengths.push_back(blob ? static_cast<int>(p.blob.size()) : 0);
      formats.push_back(blob ? 1 : 0);
    }
    const int n = static_cast<int>(params_.size());
    result_.reset(name_.empty() ? PQexecParams(conn_, sql_.c_str(), n, nullptr, values.data(),
                                               lengths.data(), formats.data(), 1)
                                : PQexecPrepared(conn_, name_.c_str(), n, values.data(),
                                                 lengths.data(), formats.data(), 1));
    if (!succeeded(result_.get())) fail(result_.get());
    row_ = -1;
  }
  [[noreturn]] void fail(const PGresult* result) const {
    throw StoreError(store_ + ": " + what_ + ": " + describe(conn_, result));
  }

  PGconn* conn_;
  const std::string& store_;
  std::string name_, sql_, what_;
  std::vector<Param> params_;
  Result result_;
  int row_ = -1;
};

// A chunk's bytes gathered, then inserted whole: a message is the server's unit.
class ChunkWriter : public db::BlobWriter {
 public:
  ChunkWriter(std::unique_ptr<db::Statement> insert, uint64_t size)
      : insert_(std::move(insert)), bytes_(size) {}
  void write(const unsigned char* bytes, size_t n, uint64_t at) override {
    std::memcpy(bytes_.data() + at, bytes, n);
  }
  void close() override {
    insert_->bind_blob(4, bytes_);
    insert_->step();
  }

 private:
  std::unique_ptr<db::Statement> insert_;
  std::vector<unsigned char> bytes_;
};

// A blob read whole from its row.
class BlobRow : public db::BlobReader {
 public:
  explicit BlobRow(std::unique_ptr<db::Statement> row) : row_(std::move(row)) {}
  uint64_t size() const override { return bytes_.size(); }
  void read(unsigned char* out, size_t n, uint64_t at) override {
    std::memcpy(out, bytes_.data() + at, n);
  }
  void load(const std::string& store, const std::string& what) {
    if (!row_->step()) throw StoreError(store + ": " + what + ": its row is gone");
    bytes_ = row_->blob(0);
  }

 private:
  std::unique_ptr<db::Statement> row_;
  std::vector<unsigned char> bytes_;
};

// A server's connection and what it learnt of the store. Statements are prepared the second
// time a session asks them, by their text: a command asks the same questions of many runs
// (quartz list: each run's links and series). One command opens the store up to three
// times: its schema is checked once a session.
struct Session {
  PGconn* conn = nullptr;
  std::map<std::string, std::pair<std::string, int>> prepared;  // SQL -> name, parameters
  std::set<std::string> asked;                                  // SQL asked once, not prepared
  std::set<std::string> tables;                                 // known to be there
  // open_schema passed for reading; for writing (the schema made or upgraded if need be).
  bool schema_read = false, schema_written = false;
  bool may_write = false;  // the role may add runs
};

// The sessions of this process no store uses now, by URI, for the next store opened: a
// connection costs 16-18 ms here (the server forks a backend for it), about half what
// reading a small run from a file does, and one command opens the store up to three times.
class IdleSessions {
 public:
  ~IdleSessions() {
    for (auto& [uri, session] : idle_) PQfinish(session.conn);
  }
  std::optional<Session> take(const std::string& uri) {
    std::lock_guard lock(mutex_);
    const auto at = idle_.find(uri);
    if (at == idle_.end()) return std::nullopt;
    Session session = at->second;
    idle_.erase(at);
    return session;
  }
  void give(const std::string& uri, Session session) {
    std::lock_guard lock(mutex_);
    idle_.emplace(uri, session);
  }

 private:
  std::mutex mutex_;
  std::multimap<std::string, Session> idle_;
};

IdleSessions& idle_sessions() {
  static IdleSessions sessions;
  return sessions;
}

class PgConnection : public db::Connection {
 public:
  explicit PgConnection(const std::string& uri) : Connection(public_name(uri)), uri_(uri) {
    if (std::optional<Session> idle = idle_sessions().take(uri)) {
      session_ = *idle;
      conn_ = session_.conn;
      return;
    }
    conn_ = PQconnectdb(uri.c_str());
    if (conn_ == nullptr || PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = conn_ ? first_line(PQerrorMessage(conn_)) : "out of memory";
      PQfinish(conn_);
      throw UnreachableStoreError(name() + ": cannot open: " + why);
    }
    // The server's notices ("relation ... already exists, skipping") are not the user's.
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    session_.conn = conn_;
  }
  // Kept for the next store of this process when nothing is left open on it.
  ~PgConnection() override {
    if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) == PQTRANS_IDLE) {
      idle_sessions().give(uri_, session_);
    } else {
      PQfinish(conn_);
    }
  }

  db::Backend backend() const override { return db::Backend::postgresql; }
  std::unique_ptr<db::Statement> prepare(const std::string& sql, std::string what) override {
    const auto known = session_.prepared.find(sql);
    if (known != session_.prepared.end()) {
      return std::make_unique<PgStatement>(conn_, name(), known->second.first, known->second.second,
                                           std::move(what));
    }
    if (session_.asked.insert(sql).second) {
      return std::make_unique<PgStatement>(conn_, name(), "", sql, std::move(what));
    }
    auto statement = std::make_unique<PgStatement>(
        conn_, name(), "q" + std::to_string(session_.prepared.size() + 1), sql, std::move(what));
    session_.prepared[sql] = {statement->prepared_name(), statement->parameters()};
    return statement;
  }
  void exec(const std::string& sql, const std::string& what) override {
    Result result(PQexec(conn_, sql.c_str()));
    if (!succeeded(result.get())) fail(what, describe(conn_, result.get()));
  }
  void begin_write(const std::string& what) override {
    exec("BEGIN", what);
    exec(kTakeWriterLock, what);
  }
  void commit(const std::string& what) override {
    Result result(PQexec(conn_, "COMMIT"));
    if (!succeeded(result.get())) fail(what, describe(conn_, result.get()));
    // A transaction that failed earlier ends as ROLLBACK, without an error of its own.
    if (std::strcmp(PQcmdStatus(result.get()), "COMMIT") != 0) fail(what, "rolled back");
  }
  void rollback() noexcept override {
    if (PQtransactionStatus(conn_) != PQTRANS_IDLE && PQstatus(conn_) == CONNECTION_OK) {
      PQclear(PQexec(conn_, "ROLLBACK"));
    }
  }
  bool has_table(const std::string& table) override {
    if (session_.tables.count(table)) return true;
    auto row = prepare("SELECT to_regclass(?) IS NOT NULL", "cannot read the store's tables");
    row->bind(1, table);
    const bool there = row->step() && row->integer(0) != 0;
    if (there) session_.tables.insert(table);
    return there;
  }
  int64_t table_count() override {
    auto count =
        prepare("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()",
                "cannot open");
    return count->step() ? count->integer(0) : 0;
  }
  const char* row_id() const override { return "id"; }
  uint64_t chunk_bytes() const override { return kChunkBytes; }
  std::unique_ptr<db::BlobWriter> add_chunk(int64_t run_id, const char* kind, int64_t seq,
                                            uint64_t size, const std::string& what) override {
    auto insert =
        prepare("INSERT INTO chunks (run_id, kind, seq, bytes) VALUES (?, ?, ?, ?)", what);
    insert->bind(1, run_id);
    insert->bind(2, std::string(kind));
    insert->bind(3, seq);
    return std::make_unique<ChunkWriter>(std::move(insert), size);
  }
  std::unique_ptr<db::BlobReader> open_blob(const char* table, int64_t id,
                                            const std::string& what) override {
    // `traces` (a trace stored whole before version 5) is keyed by its run.
    const char* key = std::strcmp(table, "traces") == 0 ? "run_id" : "id";
    auto row = prepare(std::string("SELECT bytes FROM ") + table + " WHERE " + key + " = ?", what);
    row->bind(1, id);
    auto blob = std::make_unique<BlobRow>(std::move(row));
    blob->load(name(), what);
    return blob;
  }
  std::unique_ptr<db::Connection> open_reader() const override {
    return std::make_unique<PgConnection>(uri_);
  }

  // Whether the role may add runs: "" when it may, else why not.
  std::string why_read_only() {
    if (session_.may_write) return "";
    auto may = prepare("SELECT has_table_privilege('runs', 'INSERT'), current_user", "cannot open");
    if (!may->step() || may->integer(0) != 0) {
      session_.may_write = true;
      return "";
    }
    return "role " + may->text(1) + " may not write";
  }
  // open_schema for `access`, unless this session passed it already.
  void check_schema(db::Access access, const std::function<void(db::Connection&)>& open_schema) {
    const bool writing = access == db::Access::read_write;
    if (session_.schema_written || (!writing && session_.schema_read)) return;
    open_schema(*this);
    session_.schema_read = true;
    session_.schema_written = writing;
  }

 private:
  std::string uri_;
  PGconn* conn_ = nullptr;
  Session session_;
};

}  // namespace

std::unique_ptr<db::Connection> open(const std::string& uri, db::Access access,
                                     const std::function<void(db::Connection&)>& open_schema) {
  auto db = std::make_unique<PgConnection>(uri);
  db->check_schema(access, open_schema);
  if (access == db::Access::read_write) {
    const std::string why = db->why_read_only();
    if (!why.empty()) throw ReadOnlyStoreError(db->name() + ": read-only (" + why + ")");
  }
  return db;
}

std::string public_name(const std::string& uri) {
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(uri.c_str(), &error);
  if (options == nullptr) {
    PQfreemem(error);
    return "postgresql://(an unreadable URI)";
  }
  std::string user, host, port, dbname;
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const std::string keyword = o->keyword;
    if (keyword == "user") user = o->val;
    if (keyword == "host") host = o->val;
    if (keyword == "port") port = o->val;
    if (keyword == "dbname") dbname = o->val;
  }
  PQconninfoFree(options);
  std::string encoded_host;  // a socket's directory, percent-encoded as libpq reads it
  for (const char c : host) encoded_host += c == '/' ? std::string("%2F") : std::string(1, c);
  return "postgresql://" + (user.empty() ? "" : user + "@") + encoded_host +
         (port.empty() ? "" : ":" + port) + "/" + dbname;
}

}  // namespace quartz::profile::postgres
