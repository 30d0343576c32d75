// The experiment store (DESIGN.md §3): a database holding many runs, each with its capture
// exactly as read, its symbols, summary columns, and metrics the analysis library computed,
// so that cross-run questions (scaling with core count, before/after a change) are SQL
// queries. The database is an SQLite file (a path: one person, one machine) or a PostgreSQL
// server (a libpq URI, postgresql://...: a team's runs in one place), with one schema.
// Neither library is in this header: users link them through quartz_profile.
// The implementation: store.cpp (opening), store_schema.cpp (the schema below and its
// migrations), store_tables.h (each table's columns, from which the statements are made:
// store_rows.h), store_runs.cpp, store_traces.cpp (traces and predictions), store_links.cpp
// (links and series of runs), over database.h, which sqlite.h and postgres.h implement.
//
// Schema, version 1 (uint64 values are stored as their signed 64-bit bit pattern):
//   meta       (key TEXT PRIMARY KEY, value)
//                ("application", "quartz"), ("schema_version", 1)
//   runs       (id INTEGER PRIMARY KEY AUTOINCREMENT,  -- 1, 2, ...; never reused
//               program, arguments (space-separated), start_realtime_ns, host, topology,
//               elapsed_s, period_s, torn_rate, dilation_removed_s, sampler_cpu_s,
//               processors, samples, reserved_core (0/1), final (0/1),
//               capture_path, options, capture BLOB)
//   symbols    (run_id, address, function, file, line, module)   PRIMARY KEY (run_id, address)
//   procedures (run_id, name, location, normalized_s, normalized_self_s, processor_s, calls)
//   locks      (run_id, name, kind, normalized_s, wait_s, hold_s, acquisitions, contended)
//   threads    (run_id, thread_index, name, normalized_s, busy_s, spinning_s, blocked_s,
//               ready_s)
// Version 2 adds (an older store is upgraded when opened for writing):
//   traces      (run_id PRIMARY KEY, bytes BLOB)   the trace file of a traced run
//   predictions (run_id, made_realtime_ns, question, json)   `quartz predict` results
// Version 3 adds runs.capture_crc32 (indexed): the CRC-32 of the capture's bytes, which finds
// a capture imported twice (the bytes are then compared).
// Version 4 adds run_links (run_id PRIMARY KEY, parent_run): with --follow-exec, the run of
// the program that started each program (a store of version 3 read only has no links).
// Version 5 adds run_series (run_id PRIMARY KEY, series), the runs of one `quartz scale`,
// and chunks (run_id, kind, seq, bytes): captures and traces in pieces (store_chunks.h),
// runs.capture_bytes their size. Version 6 adds locks.object_id (ObjectInfo::id). Version 7
// adds labels (run_id, key, value), PRIMARY KEY (run_id, key), and run_builds (run_id
// PRIMARY KEY, compiler, build_id): where a run comes from, to find it among a team's.
// On a server, INTEGER is BIGINT, REAL DOUBLE PRECISION, BLOB BYTEA, meta.value TEXT, and
// chunks and predictions have an identity column id where SQLite has its rowid.
// Every run_id references runs(id) ON DELETE CASCADE; the metric tables are indexed by
// run_id and by name. Example: the normalized time of procedure "solve" in every run:
//   SELECT r.id, r.processors, p.normalized_s FROM procedures p JOIN runs r ON r.id = p.run_id
//   WHERE p.name = 'solve' ORDER BY r.id;
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "profile/database.h"
#include "profile/program_build.h"
#include "profile/run.h"
#include "profile/store_error.h"
#include "profile/trace_reader.h"

namespace quartz::profile {

struct RunSummary {
  int64_t id = 0;
  std::string program, arguments;  // arguments separated by spaces for display
  std::string started;             // local time "YYYY-MM-DD HH:MM:SS"; "" when not recorded
  std::string host, topology;
  double elapsed_s = 0, period_s = 0, torn_rate = 0, dilation_removed_s = 0, sampler_cpu_s = 0;
  uint32_t processors = 0;
  uint64_t samples = 0;
  bool reserved_core = false, final = true;
  std::string capture_path;  // where the capture file was when imported
  std::string options;       // free text: the options the run was made with
  ProgramBuild build;        // of its program, as imported (schema version 7)
  std::vector<std::pair<std::string, std::string>> labels;  // by key

  // Whether it has every one of `wanted` labels and, unless `on_host` is empty, was made on
  // that host: how `quartz list --label --host` and "latest@KEY=VALUE@host=NAME" find runs.
  bool matches(const std::vector<std::pair<std::string, std::string>>& wanted,
               const std::string& on_host) const;
};

// Metrics computed by the analysis library for cross-run queries (the store does not compute
// them itself: one definition of each metric lives in analysis/).
struct ProcedureMetric {
  std::string name, location;
  double normalized_s = 0, normalized_self_s = 0, processor_s = 0;
  uint64_t calls = 0;
};
struct LockMetric {
  std::string name, kind;
  double normalized_s = 0, wait_s = 0, hold_s = 0;
  uint64_t acquisitions = 0, contended = 0;
  uint32_t id = 0;  // ObjectInfo::id
};
struct ThreadMetric {
  uint32_t index = 0;
  std::string name;
  double normalized_s = 0, busy_s = 0, spinning_s = 0, blocked_s = 0, ready_s = 0;
};

struct StoredPrediction {
  std::string made;      // local time "YYYY-MM-DD HH:MM:SS"
  std::string question;  // the command line's question, e.g. "--cores 1"
  std::string json;      // analysis/prediction_json.h
  int64_t made_realtime_ns = 0;
};

// How a store is opened. Reading never creates, upgrades or locks out anything, and works
// on a read-only file, directory or file system (where SQLite cannot make its shared-memory
// file, the store is opened as immutable: nobody can be writing it).
using StoreAccess = db::Access;

// One open store. Every failure throws StoreError with a one-line message starting with the
// store's name: its path, or its URI without the password. Not thread-safe: use one Store
// per thread. Several processes may share the store, on one machine or many: a writer waits
// for another's transaction (on a file, saying so once on stderr after a second: "quartz:
// PATH is locked by another process; waiting for it", up to 10 minutes).
class Store {
 public:
  // Opens the store at `location`: a path, or a libpq URI (is_server_uri). For writing,
  // creates it (and its schema) if needed and upgrades an older schema; throws
  // ReadOnlyStoreError when it can only be read (a read-only file, a role that may not
  // write). Throws StoreError ("PATH: not a Quartz store", "PATH: cannot open: ...",
  // "PATH: store schema version N, this Quartz reads version M"). Another database is
  // refused, never modified.
  explicit Store(const std::string& location, StoreAccess access = StoreAccess::read_write);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Stores one run in one transaction: the capture's bytes exactly as read, `run`'s symbols,
  // and summary columns from run.info and run's fields. `run` must be what parse_capture()
  // gives for `capture_bytes` (load() returns the parsed bytes, not `run`). Returns the new
  // run's id. The same bytes already stored throw DuplicateCaptureError ("PATH: this capture
  // is already run N") with N. `release` (ParseOptions::release) is told, as the bytes are
  // read, an offset before which they are not read again.
  int64_t add_run(std::span<const unsigned char> capture_bytes, const Run& run,
                  const std::string& capture_path, const std::string& options,
                  const std::function<void(size_t)>& release = {});
  // Sets a run's metrics, replacing any it had. Throws "PATH: no run N" when absent.
  void add_metrics(int64_t run_id, const std::vector<ProcedureMetric>& procedures,
                   const std::vector<LockMetric>& locks, const std::vector<ThreadMetric>& threads);
  std::vector<RunSummary> list() const;  // all runs, by id
  std::optional<RunSummary> summary(int64_t run_id) const;
  std::optional<int64_t> latest() const;  // highest id, if any

  // Labels a run: replaces the values of `labels`' keys, adds the others.
  void add_labels(int64_t run_id, const std::vector<std::pair<std::string, std::string>>& labels);
  void set_build(int64_t run_id, const ProgramBuild& build);

  // Links the run of a program to the run of the program that started it (--follow-exec).
  void link_run(int64_t run_id, int64_t parent_run);
  std::optional<int64_t> parent_run(int64_t run_id) const;
  std::vector<int64_t> child_runs(int64_t run_id) const;  // by id
  // The runs of one `quartz scale` (schema version 5: run_series), numbered by their first.
  void add_to_series(int64_t run_id, int64_t series);
  std::optional<int64_t> series_of(int64_t run_id) const;
  std::vector<int64_t> series_runs(int64_t series) const;  // by id
  // The capture's bytes as stored. Throws "PATH: no run N" when absent.
  std::vector<unsigned char> capture(int64_t run_id) const;
  // The run as stored: parse_capture() of the stored bytes, with Run::symbols restored.
  // Throws "PATH: no run N" when absent; a corrupt stored capture gives the CaptureError
  // message prefixed with "PATH: run N: ".
  Run load(int64_t run_id) const;

  // Stores a run's trace file (streamed: it need not fit in memory), replacing any.
  void add_trace(int64_t run_id, const std::string& trace_path);
  // The same from another store's (open_trace), read to its end.
  void add_trace(int64_t run_id, TraceSource& trace);
  bool has_trace(int64_t run_id) const;
  // Reads a stored trace in pieces; throws "PATH: run N has no trace".
  std::unique_ptr<TraceSource> open_trace(int64_t run_id) const;

  // Made now, or at `made_realtime_ns` (a prediction copied from another store).
  void add_prediction(int64_t run_id, const std::string& question, const std::string& json,
                      int64_t made_realtime_ns = 0);
  std::vector<StoredPrediction> predictions(int64_t run_id) const;  // oldest first

  // Writes made until commit() are stored together or not at all: a run is never listed
  // without its metrics and trace. Uncommitted, they are rolled back.
  class Together {
   public:
    explicit Together(Store& store) : transaction_(*store.db_, "cannot store a run") {}
    void commit() { transaction_.commit(); }

   private:
    db::Transaction transaction_;
  };

  // True when the file is an SQLite database (header "SQLite format 3\0"); it may still be
  // some other program's database.
  static bool looks_like_store(const std::string& path);
  // True when `location` names a server: postgresql:// or postgres://.
  static bool is_server_uri(const std::string& location);
  // False when `location` is a file that does not exist; a server is asked when opened.
  static bool exists(const std::string& location);
  // `location` as messages show it: a server's URI without its password (credentials come
  // from libpq's usual places, never from what Quartz prints or stores).
  static std::string display_name(const std::string& location);
  // The store as messages name it (a URI without its password).
  const std::string& name() const { return path_; }

 private:
  // Throws "PATH: no run N" when the store has no run `run_id`.
  void require_run(int64_t run_id, const std::string& what) const;
  // The capture's bytes, from its chunks or, stored before version 5, from runs.capture.
  std::vector<unsigned char> stored_capture(int64_t run_id, const std::string& what) const;
  // The capture stored whole, before version 5 (none: it is in chunks).
  std::optional<std::vector<unsigned char>> whole_capture(int64_t run_id,
                                                          const std::string& what) const;
  // The run whose capture is `capture_bytes` (of CRC-32 `crc`), if any.
  std::optional<int64_t> run_with_capture(std::span<const unsigned char> capture_bytes,
                                          int64_t crc) const;

  std::unique_ptr<db::Connection> db_;
  std::string path_;  // db_->name()
};

}  // namespace quartz::profile
