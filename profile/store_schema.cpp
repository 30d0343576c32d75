#include "profile/store_schema.h"

#include <time.h>

#include <optional>
#include <regex>

#include "format/capture_format.h"
#include "profile/capture.h"

namespace quartz::profile {

using db::Transaction;

namespace {

constexpr int64_t kSchemaVersion = 7;
constexpr int64_t kOldestReadableVersion = 2;  // has every table the readers use
constexpr const char* kApplication = "quartz";

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
  capture BLOB NOT NULL,
  capture_crc32 INTEGER
);
CREATE INDEX runs_by_capture_crc32 ON runs(capture_crc32);
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

// Version 3 adds each capture's CRC-32, to find a capture imported twice.
constexpr const char* kUpgradeTo3Sql = R"sql(
ALTER TABLE runs ADD COLUMN capture_crc32 INTEGER;
UPDATE runs SET capture_crc32 = quartz_capture_crc32(capture);
CREATE INDEX runs_by_capture_crc32 ON runs(capture_crc32);
)sql";

// Version 4 links the runs of one `quartz run --follow-exec`: each program to the one that
// started it.
constexpr const char* kSchemaSql4 = R"sql(
CREATE TABLE run_links (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  parent_run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE
);
CREATE INDEX run_links_by_parent ON run_links(parent_run);
)sql";

// Version 5 groups the runs of one `quartz scale` into a series, numbered by its first run,
// and stores captures and traces in chunks (store_chunks.h): runs.capture_bytes is the size
// of a capture stored so, NULL for one stored whole in runs.capture before.
constexpr const char* kSchemaSql5 = R"sql(
CREATE TABLE run_series (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  series INTEGER NOT NULL
);
CREATE INDEX run_series_by_series ON run_series(series);
CREATE TABLE chunks (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  seq INTEGER NOT NULL,
  bytes BLOB NOT NULL
);
CREATE UNIQUE INDEX chunks_by_run ON chunks(run_id, kind, seq);
ALTER TABLE runs ADD COLUMN capture_bytes INTEGER;
)sql";

// Version 6 gives each lock row the object's id in its run (ObjectInfo::id), as reports,
// exports and the viewer print it ("#3 mutex@..."); NULL for rows stored before.
constexpr const char* kSchemaSql6 = R"sql(
ALTER TABLE locks ADD COLUMN object_id INTEGER;
)sql";

// Version 7 says where a run comes from, to find it among a team's: labels given at `quartz
// run --label key=value`, and the build of its program (program_build.h).
constexpr const char* kSchemaSql7 = R"sql(
CREATE TABLE labels (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, key)
);
CREATE INDEX labels_by_key ON labels(key, value);
CREATE TABLE run_builds (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  compiler TEXT NOT NULL,
  build_id TEXT NOT NULL
);
CREATE INDEX run_builds_by_build_id ON run_builds(build_id);
)sql";

// What SQLite gives every table, a row's own key in insertion order (rowid): an identity
// column on a server, for the tables whose rows are found or ordered by it.
constexpr const char* kServerRowIdsSql = R"sql(
ALTER TABLE chunks ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX chunks_by_id ON chunks(id);
ALTER TABLE predictions ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;
)sql";

// A schema statement of SQLite's in PostgreSQL's types: 64-bit integers, doubles, bytea;
// an identity for AUTOINCREMENT; SQLite's untyped meta.value as text.
std::string postgres_schema(const std::string& sql) {
  static const std::pair<std::regex, const char*> kTypes[] = {
      {std::regex(R"(INTEGER PRIMARY KEY AUTOINCREMENT)"),
       "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"},
      {std::regex(R"(\bINTEGER\b)"), "BIGINT"},
      {std::regex(R"(\bREAL\b)"), "DOUBLE PRECISION"},
      {std::regex(R"(\bBLOB\b)"), "BYTEA"},
      {std::regex(R"(\) WITHOUT ROWID)"), ")"},
      {std::regex(R"(\(key TEXT PRIMARY KEY, value\))"), "(key TEXT PRIMARY KEY, value TEXT)"},
  };
  std::string out = sql;
  for (const auto& [pattern, replacement] : kTypes)
    out = std::regex_replace(out, pattern, replacement);
  return out;
}

// The schema's version as meta.value holds it: an integer in SQLite, text on a server.
void bind_version(db::Connection& db, db::Statement& meta, int parameter) {
  if (db.backend() == db::Backend::postgresql) {
    meta.bind(parameter, std::to_string(kSchemaVersion));
  } else {
    meta.bind(parameter, kSchemaVersion);
  }
}

// Runs a schema statement in the connection's database.
void exec_schema(db::Connection& db, const char* sql, const std::string& what) {
  db.exec(db.backend() == db::Backend::postgresql ? postgres_schema(sql) : std::string(sql), what);
}

}  // namespace

int64_t capture_crc32(std::span<const unsigned char> bytes,
                      const std::function<void(size_t)>& release) {
  return checksum(bytes, release);
}

std::string run_name(int64_t run_id) {
  return "run " + std::to_string(run_id);
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

void open_schema(db::Connection& db, StoreAccess access) {
  const std::string& path = db.name();
  const bool writable = access == StoreAccess::read_write;
  if (writable && db.table_count() == 0) {
    const std::string what = "cannot create the store";
    Transaction transaction(db, what);
    // Another process may have created it while we waited for the lock.
    if (db.table_count() == 0) {
      for (const char* sql :
           {kSchemaSql, kSchemaSql2, kSchemaSql4, kSchemaSql5, kSchemaSql6, kSchemaSql7}) {
        exec_schema(db, sql, what);
      }
      if (db.backend() == db::Backend::postgresql) db.exec(kServerRowIdsSql, what);
      auto meta = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?), (?, ?)", what);
      meta->bind(1, std::string("application"));
      meta->bind(2, std::string(kApplication));
      meta->bind(3, std::string("schema_version"));
      bind_version(db, *meta, 4);
      meta->step();
    }
    transaction.commit();
  }

  const StoreError not_a_store(path + ": not a Quartz store");
  if (!writable && db.table_count() == 0) {  // a new server's database, an empty file
    throw StoreError(path +
                     ": no Quartz store yet (the first 'quartz run' or 'quartz import' "
                     "into it makes one)");
  }
  if (!db.has_table("meta")) throw not_a_store;
  // The application and version stored, read again inside an upgrade's transaction: another
  // process may have upgraded the store while this one waited for the lock.
  const auto stored_version = [&]() -> std::optional<int64_t> {
    std::unique_ptr<db::Statement> meta;
    try {
      meta =
          db.prepare("SELECT key, value FROM meta WHERE key IN ('application', 'schema_version')",
                     "cannot open");
      std::string application, version;
      while (meta->step()) {
        (meta->text(0) == "application" ? application : version) = meta->text(1);
      }
      if (application != kApplication || version.empty() ||
          version.find_first_not_of("0123456789") != std::string::npos) {
        throw not_a_store;
      }
      return std::stoll(version);
    } catch (const StoreError& e) {
      if (!meta) throw not_a_store;  // a "meta" table of another shape
      throw;
    }
  };
  int64_t version = *stored_version();
  if (!writable && version >= kOldestReadableVersion && version <= kSchemaVersion) return;
  if (!writable && version < kOldestReadableVersion) {
    throw StoreError(path + ": store schema version " + std::to_string(version) +
                     ": open it once for writing (quartz import) to upgrade it");
  }
  // A server's store was made at version 6 or later: the upgrades before are SQLite's alone.
  const int64_t oldest_upgraded = db.backend() == db::Backend::sqlite ? 1 : 6;
  if (writable && version < kSchemaVersion && version >= oldest_upgraded) {
    const std::string what = "cannot upgrade the store";
    Transaction transaction(db, what);
    version = *stored_version();
    if (version == 1) db.exec(kSchemaSql2, what);
    if (version <= 2) {
      db.exec(kUpgradeTo3Sql, what);  // quartz_capture_crc32(): sqlite.h
    }
    if (version <= 3) db.exec(kSchemaSql4, what);
    if (version <= 4) db.exec(kSchemaSql5, what);
    if (version <= 5) db.exec(kSchemaSql6, what);
    if (version <= 6) exec_schema(db, kSchemaSql7, what);
    auto meta = db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'", what);
    bind_version(db, *meta, 1);
    meta->step();
    transaction.commit();
    version = kSchemaVersion;
  }
  if (version != kSchemaVersion) {
    throw StoreError(path + ": store schema version " + std::to_string(version) +
                     ", this Quartz reads version " + std::to_string(kSchemaVersion));
  }
}

}  // namespace quartz::profile
