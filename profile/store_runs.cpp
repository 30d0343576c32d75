// The store's runs: captures, symbols, summary columns and metrics.
#include <algorithm>
#include <charconv>

#include "profile/capture.h"
#include "profile/compiler_copies.h"
#include "profile/mapped_file.h"
#include "profile/sqlite.h"
#include "profile/store.h"
#include "profile/store_chunks.h"
#include "profile/store_schema.h"

namespace quartz::profile {

using sqlite::Statement;
using sqlite::Transaction;

namespace {

constexpr const char* kSummaryColumns =
    "id, program, arguments, start_realtime_ns, host, topology, elapsed_s, period_s, torn_rate, "
    "dilation_removed_s, sampler_cpu_s, processors, samples, reserved_core, final, capture_path, "
    "options";

// A run-section value as an exact unsigned integer (Run::number goes through double, which
// rounds nanosecond timestamps); 0 when absent or not a decimal integer.
uint64_t unsigned_value(const Run& run, const char* key) {
  const std::string text = run.text(key);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : 0;
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

int64_t Store::add_run(std::span<const unsigned char> capture_bytes, const Run& run,
                       const std::string& capture_path, const std::string& options,
                       const std::function<void(size_t)>& release) {
  using namespace capture::run_keys;
  sqlite3* db = db_.get();
  const std::string what = "cannot add a run";

  std::string arguments = run.text(kArguments);
  for (char& c : arguments) {
    if (c == '\x1f') c = ' ';
  }
  const uint64_t start_ns = unsigned_value(run, kStartRealtimeNs);

  const int64_t crc = capture_crc32(capture_bytes, release);

  Transaction transaction(db, path_, what);
  // Inside the transaction: two imports of one capture at once store it once.
  if (const auto existing = run_with_capture(capture_bytes, crc)) {
    throw DuplicateCaptureError(path_ + ": this capture is already " + run_name(*existing),
                                *existing);
  }
  Statement insert(db, path_,
                   "INSERT INTO runs (program, arguments, start_realtime_ns, host, topology, "
                   "elapsed_s, period_s, torn_rate, dilation_removed_s, sampler_cpu_s, "
                   "processors, samples, reserved_core, final, capture_path, options, capture, "
                   "capture_crc32, capture_bytes) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, zeroblob(0), ?, ?)",
                   what);
  insert.bind(1, run.text(kProgram));
  insert.bind(2, arguments);
  // Timestamps past 2262 do not fit: 0, "not recorded".
  insert.bind(3, start_ns <= uint64_t{INT64_MAX} ? static_cast<int64_t>(start_ns) : int64_t{0});
  insert.bind(4, run.text(kHost));
  insert.bind(5, run.text(kTopology));
  insert.bind(6, run.elapsed_s());
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
  insert.bind(17, crc);
  insert.bind(18, static_cast<int64_t>(capture_bytes.size()));
  insert.step();
  const int64_t run_id = sqlite3_last_insert_rowid(db);
  chunks::write(db, path_, run_id, chunks::kCapture, capture_bytes, what, chunks::kChunkBytes,
                release);

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

std::optional<std::vector<unsigned char>> Store::whole_capture(int64_t run_id,
                                                               const std::string& what) const {
  // Before version 5 (a store opened read only is not upgraded) every capture was whole.
  const bool chunked = sqlite::has_table(db_.get(), path_, "chunks");
  Statement row(db_.get(), path_,
                chunked ? "SELECT capture_bytes IS NULL, capture FROM runs WHERE id = ?"
                        : "SELECT 1, capture FROM runs WHERE id = ?",
                what);
  row.bind(1, run_id);
  if (row.step() && row.integer(0)) return row.blob(1);
  return std::nullopt;
}

std::vector<unsigned char> Store::stored_capture(int64_t run_id, const std::string& what) const {
  std::optional<std::vector<unsigned char>> whole = whole_capture(run_id, what);
  return whole ? std::move(*whole)
               : chunks::read_all(db_.get(), path_, run_id, chunks::kCapture, what);
}

std::optional<int64_t> Store::run_with_capture(std::span<const unsigned char> capture_bytes,
                                               int64_t crc) const {
  Statement same(db_.get(), path_,
                 "SELECT id FROM runs WHERE capture_crc32 = ? AND "
                 "coalesce(capture_bytes, length(capture)) = ?",
                 "cannot add a run");
  same.bind(1, crc);
  same.bind(2, static_cast<int64_t>(capture_bytes.size()));
  while (same.step()) {
    const std::vector<unsigned char> stored = stored_capture(same.integer(0), "cannot add a run");
    if (std::equal(stored.begin(), stored.end(), capture_bytes.begin(), capture_bytes.end())) {
      return same.integer(0);
    }
  }
  return std::nullopt;
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
                 "acquisitions, contended, object_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    lock.bind(9, int64_t{l.id});
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
    Statement row(db, path_, "SELECT 1 FROM runs WHERE id = ?", what);
    row.bind(1, run_id);
    if (!row.step()) throw StoreError(path_ + ": no " + run_name(run_id));
  }
  try {
    if (std::optional<std::vector<unsigned char>> whole = whole_capture(run_id, what)) {
      run = parse_capture(*whole, "capture");
    } else {
      // Into memory of its own, dropped as the parser is done with it: the capture of a run
      // of millions of contexts is not resident whole beside the run (2.2 times the
      // capture's size at the peak, where the run alone is 1.2).
      OwnedCaptureBytes bytes(chunks::size_of(db, path_, run_id, chunks::kCapture, what));
      chunks::read_into(db, path_, run_id, chunks::kCapture, what, bytes.bytes());
      run = parse_capture(bytes.bytes(), "capture", bytes.dropping());
    }
  } catch (const CaptureError& e) {
    throw StoreError(path_ + ": " + run_name(run_id) + ": " + e.what());
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
  merge_compiler_copies(run);
  return run;
}

}  // namespace quartz::profile
