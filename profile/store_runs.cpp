// The store's runs: captures, symbols, summary columns and metrics.
#include <algorithm>
#include <charconv>

#include "profile/capture.h"
#include "profile/compiler_copies.h"
#include "profile/mapped_file.h"
#include "profile/store.h"
#include "profile/store_chunks.h"
#include "profile/store_rows.h"
#include "profile/store_schema.h"
#include "profile/store_tables.h"

namespace quartz::profile {

using db::Statement;
using db::Transaction;
using rows::read_row;
using rows::RowInsert;
using rows::select_sql;

namespace {

// A run-section value as an exact unsigned integer (Run::number goes through double, which
// rounds nanosecond timestamps); 0 when absent or not a decimal integer.
uint64_t unsigned_value(const Run& run, const char* key) {
  const std::string text = run.text(key);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : 0;
}

// The runs row of a run parsed from its capture: its summary columns from the run section.
tables::RunRow run_row(const Run& run) {
  using namespace capture::run_keys;
  tables::RunRow row;
  row.program = run.text(kProgram);
  row.arguments = run.text(kArguments);
  for (char& c : row.arguments) {
    if (c == '\x1f') c = ' ';
  }
  // Timestamps past 2262 do not fit: 0, "not recorded".
  const uint64_t start_ns = unsigned_value(run, kStartRealtimeNs);
  row.start_realtime_ns = start_ns <= uint64_t{INT64_MAX} ? static_cast<int64_t>(start_ns) : 0;
  row.host = run.text(kHost);
  row.topology = run.text(kTopology);
  row.elapsed_s = run.elapsed_s();
  row.period_s = run.number(kPeriodNs) * 1e-9;
  row.torn_rate = run.torn_rate();
  row.dilation_removed_s = run.number(kDilationRemovedNs) * 1e-9;
  row.sampler_cpu_s = run.number(kSamplerCpuNs) * 1e-9;
  row.processors = run.processors;
  row.samples = unsigned_value(run, kSamples);
  row.reserved_core = run.text(kReserve) == "yes";
  row.final = run.final;
  return row;
}

// The summary of the row a select_sql() of runs stands on.
RunSummary read_summary(const Statement& rows) {
  tables::RunRow row;
  read_row<tables::kRuns>(rows, row);
  row.started = local_time(row.start_realtime_ns);
  return row;
}

// The labels and builds of `runs` (by id; of the run `only`, if given), where the store has
// them (schema version 7).
void read_origins(db::Connection& db, std::vector<RunSummary>& runs,
                  std::optional<int64_t> only = std::nullopt) {
  if (runs.empty() || !db.has_table("labels")) return;
  const auto find = [&](int64_t id) -> RunSummary* {
    const auto at = std::lower_bound(runs.begin(), runs.end(), id,
                                     [](const RunSummary& r, int64_t id) { return r.id < id; });
    return at != runs.end() && at->id == id ? &*at : nullptr;
  };
  const std::string where = only ? "WHERE run_id = ? " : "";
  auto labels =
      db.prepare(select_sql(tables::kLabels, where + "ORDER BY run_id, key", "run_id, key"),
                 "cannot read the labels");
  if (only) labels->bind(1, *only);
  while (labels->step()) {
    if (RunSummary* run = find(labels->integer(0))) {
      run->labels.emplace_back(labels->text(1), labels->text(2));
    }
  }
  auto builds = db.prepare(select_sql(tables::kBuilds, where, "run_id"), "cannot read the builds");
  if (only) builds->bind(1, *only);
  while (builds->step()) {
    if (RunSummary* run = find(builds->integer(0)))
      read_row<tables::kBuilds>(*builds, run->build, 1);
  }
}

}  // namespace

int64_t Store::add_run(std::span<const unsigned char> capture_bytes, const Run& run,
                       const std::string& capture_path, const std::string& options,
                       const std::function<void(size_t)>& release) {
  db::Connection& db = *db_;
  const std::string what = "cannot add a run";
  tables::RunRow row = run_row(run);
  row.capture_path = capture_path;
  row.options = options;
  row.capture_crc32 = capture_crc32(capture_bytes, release);
  row.capture_bytes = static_cast<int64_t>(capture_bytes.size());

  Transaction transaction(db, what);
  // Inside the transaction: two imports of one capture at once store it once.
  if (const auto existing = run_with_capture(capture_bytes, row.capture_crc32)) {
    throw DuplicateCaptureError(path_ + ": this capture is already " + run_name(*existing),
                                *existing);
  }
  const int64_t run_id = RowInsert<tables::kRuns>(db, what, rows::OnConflict::fail, "id").add(row);
  chunks::write(db, run_id, chunks::kCapture, capture_bytes, what, 0, release);

  RowInsert<tables::kSymbols> symbols(db, what);
  for (const auto& [address, symbol] : run.symbols) symbols.add(symbol, run_id, address);
  transaction.commit();
  return run_id;
}

std::optional<std::vector<unsigned char>> Store::whole_capture(int64_t run_id,
                                                               const std::string& what) const {
  // Before version 5 (a store opened read only is not upgraded) every capture was whole.
  const bool chunked = db_->has_table("chunks");
  auto row = db_->prepare(chunked ? "SELECT capture_bytes IS NULL, capture FROM runs WHERE id = ?"
                                  : "SELECT 1, capture FROM runs WHERE id = ?",
                          what);
  row->bind(1, run_id);
  if (row->step() && row->integer(0)) return row->blob(1);
  return std::nullopt;
}

std::vector<unsigned char> Store::stored_capture(int64_t run_id, const std::string& what) const {
  std::optional<std::vector<unsigned char>> whole = whole_capture(run_id, what);
  return whole ? std::move(*whole) : chunks::read_all(*db_, run_id, chunks::kCapture, what);
}

void Store::require_run(int64_t run_id, const std::string& what) const {
  auto row = db_->prepare("SELECT 1 FROM runs WHERE id = ?", what);
  row->bind(1, run_id);
  if (!row->step()) throw StoreError(path_ + ": no " + run_name(run_id));
}

std::vector<unsigned char> Store::capture(int64_t run_id) const {
  const std::string what = "cannot read " + run_name(run_id);
  require_run(run_id, what);
  return stored_capture(run_id, what);
}

std::optional<int64_t> Store::run_with_capture(std::span<const unsigned char> capture_bytes,
                                               int64_t crc) const {
  auto same = db_->prepare(
      "SELECT id FROM runs WHERE capture_crc32 = ? AND "
      "coalesce(capture_bytes, length(capture)) = ?",
      "cannot add a run");
  same->bind(1, crc);
  same->bind(2, static_cast<int64_t>(capture_bytes.size()));
  std::vector<int64_t> candidates;
  while (same->step()) candidates.push_back(same->integer(0));
  for (const int64_t run_id : candidates) {
    const std::vector<unsigned char> stored = stored_capture(run_id, "cannot add a run");
    if (std::equal(stored.begin(), stored.end(), capture_bytes.begin(), capture_bytes.end())) {
      return run_id;
    }
  }
  return std::nullopt;
}

void Store::add_metrics(int64_t run_id, const std::vector<ProcedureMetric>& procedures,
                        const std::vector<LockMetric>& locks,
                        const std::vector<ThreadMetric>& threads) {
  db::Connection& db = *db_;
  const std::string what = "cannot add metrics of " + run_name(run_id);
  Transaction transaction(db, what);
  require_run(run_id, what);
  // Metrics are replaced as a whole: a new analysis of a run supersedes the old one.
  for (const char* sql :
       {"DELETE FROM procedures WHERE run_id = ?", "DELETE FROM locks WHERE run_id = ?",
        "DELETE FROM threads WHERE run_id = ?"}) {
    auto remove = db.prepare(sql, what);
    remove->bind(1, run_id);
    remove->step();
  }

  RowInsert<tables::kProcedures> procedure(db, what);
  for (const ProcedureMetric& p : procedures) procedure.add(p, run_id);
  RowInsert<tables::kLocks> lock(db, what);
  for (const LockMetric& l : locks) lock.add(l, run_id);
  RowInsert<tables::kThreads> thread(db, what);
  for (const ThreadMetric& t : threads) thread.add(t, run_id);
  transaction.commit();
}

std::vector<RunSummary> Store::list() const {
  auto rows = db_->prepare(select_sql(tables::kRuns, "ORDER BY id"), "cannot list the runs");
  std::vector<RunSummary> runs;
  while (rows->step()) runs.push_back(read_summary(*rows));
  read_origins(*db_, runs);
  return runs;
}

std::optional<RunSummary> Store::summary(int64_t run_id) const {
  auto row =
      db_->prepare(select_sql(tables::kRuns, "WHERE id = ?"), "cannot read " + run_name(run_id));
  row->bind(1, run_id);
  if (!row->step()) return std::nullopt;
  std::vector<RunSummary> runs{read_summary(*row)};
  read_origins(*db_, runs, run_id);
  return runs.front();
}

bool RunSummary::matches(const std::vector<std::pair<std::string, std::string>>& wanted,
                         const std::string& on_host) const {
  return (on_host.empty() || host == on_host) &&
         std::all_of(wanted.begin(), wanted.end(), [&](const auto& label) {
           return std::find(labels.begin(), labels.end(), label) != labels.end();
         });
}

void Store::add_labels(int64_t run_id,
                       const std::vector<std::pair<std::string, std::string>>& labels) {
  const std::string what = "cannot label " + run_name(run_id);
  Transaction transaction(*db_, what);
  RowInsert<tables::kLabels> insert(*db_, what, rows::OnConflict::replace);
  for (const auto& [key, value] : labels) insert.add({value}, run_id, key);
  transaction.commit();
}

void Store::set_build(int64_t run_id, const ProgramBuild& build) {
  RowInsert<tables::kBuilds>(*db_, "cannot store the build of " + run_name(run_id),
                             rows::OnConflict::replace)
      .add(build, run_id);
}

std::optional<int64_t> Store::latest() const {
  auto row = db_->prepare("SELECT max(id) FROM runs", "cannot list the runs");
  if (!row->step() || row->is_null(0)) return std::nullopt;
  return row->integer(0);
}

Run Store::load(int64_t run_id) const {
  db::Connection& db = *db_;
  const std::string what = "cannot load " + run_name(run_id);
  Run run;
  require_run(run_id, what);
  try {
    if (std::optional<std::vector<unsigned char>> whole = whole_capture(run_id, what)) {
      run = parse_capture(*whole, "capture");
    } else {
      // Into memory of its own, dropped as the parser is done with it: the capture of a run
      // of millions of contexts is not resident whole beside the run (a peak of 2.2 times
      // the capture's size).
      OwnedCaptureBytes bytes(chunks::size_of(db, run_id, chunks::kCapture, what));
      chunks::read_into(db, run_id, chunks::kCapture, what, bytes.bytes());
      run = parse_capture(bytes.bytes(), "capture", bytes.dropping());
    }
  } catch (const CaptureError& e) {
    throw StoreError(path_ + ": " + run_name(run_id) + ": " + e.what());
  }
  auto symbols = db.prepare(select_sql(tables::kSymbols, "WHERE run_id = ?", "address"), what);
  symbols->bind(1, run_id);
  while (symbols->step())
    read_row<tables::kSymbols>(*symbols, run.symbols[symbols->unsigned_integer(0)], 1);
  merge_compiler_copies(run);
  return run;
}

}  // namespace quartz::profile
