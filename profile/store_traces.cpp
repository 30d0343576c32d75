// The store's traces (`quartz run --trace`) and the predictions made from them.
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "profile/sqlite.h"
#include "profile/store.h"
#include "profile/store_schema.h"

namespace quartz::profile {

using sqlite::fail;
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
  {
    Statement insert(db, path_,
                     "INSERT OR REPLACE INTO traces (run_id, bytes) VALUES (?, zeroblob(?))", what);
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
    in.read(buffer.data(),
            static_cast<std::streamsize>(std::min<uint64_t>(buffer.size(), size - at)));
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
  Statement row(db_.get(), path_, "SELECT 1 FROM traces WHERE run_id = ?",
                "cannot read " + run_name(run_id));
  row.bind(1, run_id);
  return row.step();
}

namespace {
// A stored trace read in pieces, through a connection of its own.
class StoredTrace : public TraceSource {
 public:
  // `immutable`: opened as the store was (Store::immutable_).
  StoredTrace(const std::string& path, int64_t run_id, bool immutable)
      : name_(path + ": " + run_name(run_id) + ": trace") {
    sqlite3* db = nullptr;
    const std::string file = immutable ? sqlite::immutable_uri(path) : path;
    const int flags = SQLITE_OPEN_READONLY | (immutable ? SQLITE_OPEN_URI : 0);
    if (sqlite3_open_v2(file.c_str(), &db, flags, nullptr) != SQLITE_OK ||
        sqlite3_blob_open(db, "main", "traces", "bytes", run_id, 0, &blob_) != SQLITE_OK) {
      const std::string message = db ? sqlite::describe(db) : "cannot open";
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
  return std::make_unique<StoredTrace>(path_, run_id, immutable_);
}

void Store::add_prediction(int64_t run_id, const std::string& question, const std::string& json) {
  Statement insert(
      db_.get(), path_,
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

}  // namespace quartz::profile
