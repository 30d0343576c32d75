// The store's traces (`quartz run --trace`) and the predictions made from them.
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "profile/sqlite.h"
#include "profile/sqlite_rows.h"
#include "profile/store.h"
#include "profile/store_chunks.h"
#include "profile/store_schema.h"
#include "profile/store_tables.h"

namespace quartz::profile {

using sqlite::fail;
using sqlite::read_row;
using sqlite::RowInsert;
using sqlite::select_sql;
using sqlite::Statement;
using sqlite::Transaction;

void Store::add_trace(int64_t run_id, const std::string& trace_path) {
  sqlite3* db = db_.get();
  const std::string what = "cannot add the trace of " + run_name(run_id);
  std::ifstream in(trace_path, std::ios::binary);
  std::error_code error;
  const auto size = std::filesystem::file_size(trace_path, error);
  if (!in || error) throw StoreError(trace_path + ": cannot open: " + std::strerror(errno));
  Transaction transaction(db, path_, what);
  // Streamed in pieces: a trace may be far larger than the memory we want to use.
  chunks::write(db, path_, run_id, chunks::kTrace, in, size, what);
  transaction.commit();
}

namespace {

// Where a run's trace is: the rowids of its chunks in `table`, in order. Before version 5 a
// trace was one blob in `traces`, whose rowid is the run's id.
struct TraceBlobs {
  const char* table = "chunks";
  std::vector<int64_t> rowids;
};

TraceBlobs trace_blobs(sqlite3* db, const std::string& path, int64_t run_id) {
  const std::string what = "cannot read " + run_name(run_id);
  if (sqlite::has_table(db, path, "chunks")) {
    TraceBlobs chunked{"chunks", chunks::rowids(db, path, run_id, chunks::kTrace, what)};
    if (!chunked.rowids.empty()) return chunked;
  }
  Statement row(db, path, "SELECT 1 FROM traces WHERE run_id = ?", what);
  row.bind(1, run_id);
  if (row.step()) return {"traces", {run_id}};
  return {};
}

// A stored trace read in pieces, through a connection of its own.
class StoredTrace : public TraceSource {
 public:
  // `immutable`: opened as the store was (Store::immutable_).
  StoredTrace(const std::string& path, int64_t run_id, bool immutable, TraceBlobs blobs)
      : name_(path + ": " + run_name(run_id) + ": trace"), blobs_(std::move(blobs)) {
    sqlite3* db = nullptr;
    const std::string file = immutable ? sqlite::immutable_uri(path) : path;
    const int flags = SQLITE_OPEN_READONLY | (immutable ? SQLITE_OPEN_URI : 0);
    if (sqlite3_open_v2(file.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      const std::string message = db ? sqlite::describe(db) : "cannot open";
      sqlite3_close_v2(db);
      throw StoreError(path + ": cannot read the trace of " + run_name(run_id) + ": " + message);
    }
    db_ = db;
    // A connection of its own waits as the store's does: another may be opening the store
    // at the same moment (quartz predict reads the trace twice at once), and the first of
    // them rebuilds the WAL's index while the others wait.
    sqlite3_busy_timeout(db_, static_cast<int>(kLockWaitLimitMs));
  }
  ~StoredTrace() override {
    sqlite3_blob_close(blob_);
    sqlite3_close_v2(db_);
  }
  // As much of `n` as there is, across the chunks; short only at the end or on an error.
  size_t read(void* out, size_t n) override {
    size_t done = 0;
    while (done < n) {
      if (at_ == size_ && !next_blob()) break;
      const int k =
          static_cast<int>(std::min<int64_t>(static_cast<int64_t>(n - done), size_ - at_));
      if (sqlite3_blob_read(blob_, static_cast<char*>(out) + done, k, static_cast<int>(at_)) !=
          SQLITE_OK) {
        throw StoreError(name_ + ": " + sqlite::describe(db_));
      }
      at_ += k;
      done += static_cast<size_t>(k);
    }
    return done;
  }
  const std::string& name() const override { return name_; }

 private:
  bool next_blob() {
    if (next_ == blobs_.rowids.size()) return false;
    sqlite3_blob_close(blob_);
    blob_ = nullptr;
    if (sqlite3_blob_open(db_, "main", blobs_.table, "bytes", blobs_.rowids[next_++], 0, &blob_) !=
        SQLITE_OK) {
      // Not the trace's end: say why, rather than read as a trace cut short.
      throw StoreError(name_ + ": " + sqlite::describe(db_));
    }
    size_ = sqlite3_blob_bytes(blob_);
    at_ = 0;
    return true;
  }

  std::string name_;
  TraceBlobs blobs_;
  size_t next_ = 0;
  sqlite3* db_ = nullptr;
  sqlite3_blob* blob_ = nullptr;
  int64_t size_ = 0, at_ = 0;
};

}  // namespace

bool Store::has_trace(int64_t run_id) const {
  return !trace_blobs(db_.get(), path_, run_id).rowids.empty();
}

std::unique_ptr<TraceSource> Store::open_trace(int64_t run_id) const {
  TraceBlobs blobs = trace_blobs(db_.get(), path_, run_id);
  if (blobs.rowids.empty()) throw StoreError(path_ + ": " + run_name(run_id) + " has no trace");
  return std::make_unique<StoredTrace>(path_, run_id, immutable_, std::move(blobs));
}

void Store::add_prediction(int64_t run_id, const std::string& question, const std::string& json) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  const tables::PredictionRow row{static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec,
                                  question, json};
  RowInsert<tables::kPredictions>(db_.get(), path_,
                                  "cannot store a prediction for " + run_name(run_id))
      .add(row, run_id);
}

std::vector<StoredPrediction> Store::predictions(int64_t run_id) const {
  Statement rows(db_.get(), path_,
                 select_sql(tables::kPredictions, "WHERE run_id = ? ORDER BY rowid").c_str(),
                 "cannot read the predictions of " + run_name(run_id));
  rows.bind(1, run_id);
  std::vector<StoredPrediction> out;
  tables::PredictionRow row;
  while (rows.step()) {
    read_row<tables::kPredictions>(rows, row);
    out.push_back({local_time(row.made_realtime_ns), row.question, row.json});
  }
  return out;
}

}  // namespace quartz::profile
