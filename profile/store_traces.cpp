// The store's traces (`quartz run --trace`) and the predictions made from them.
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "profile/store.h"
#include "profile/store_chunks.h"
#include "profile/store_rows.h"
#include "profile/store_schema.h"
#include "profile/store_tables.h"

namespace quartz::profile {

using db::Transaction;
using rows::read_row;
using rows::RowInsert;
using rows::select_sql;

void Store::add_trace(int64_t run_id, const std::string& trace_path) {
  const std::string what = "cannot add the trace of " + run_name(run_id);
  std::ifstream in(trace_path, std::ios::binary);
  std::error_code error;
  const auto size = std::filesystem::file_size(trace_path, error);
  if (!in || error) throw StoreError(trace_path + ": cannot open: " + std::strerror(errno));
  Transaction transaction(*db_, what);
  // Streamed in pieces: a trace may be far larger than the memory we want to use.
  chunks::write(*db_, run_id, chunks::kTrace, in, size, what);
  transaction.commit();
}

void Store::add_trace(int64_t run_id, TraceSource& trace) {
  const std::string what = "cannot add the trace of " + run_name(run_id);
  Transaction transaction(*db_, what);
  chunks::write(*db_, run_id, chunks::kTrace, trace, what);
  transaction.commit();
}

namespace {

// Where a run's trace is: the ids of its rows in `table`, in order. Before version 5 a
// trace was one blob in `traces`, whose rowid is the run's id.
struct TraceBlobs {
  const char* table = "chunks";
  std::vector<int64_t> ids;
};

TraceBlobs trace_blobs(db::Connection& db, int64_t run_id) {
  const std::string what = "cannot read " + run_name(run_id);
  if (db.has_table("chunks")) {
    TraceBlobs chunked{"chunks", chunks::ids(db, run_id, chunks::kTrace, what)};
    if (!chunked.ids.empty()) return chunked;
  }
  auto row = db.prepare("SELECT 1 FROM traces WHERE run_id = ?", what);
  row->bind(1, run_id);
  if (row->step()) return {"traces", {run_id}};
  return {};
}

// A stored trace read in pieces, through a connection of its own.
class StoredTrace : public TraceSource {
 public:
  StoredTrace(std::unique_ptr<db::Connection> db, int64_t run_id, TraceBlobs blobs)
      : name_(db->name() + ": " + run_name(run_id) + ": trace"),
        what_("cannot read the trace of " + run_name(run_id)),
        db_(std::move(db)),
        blobs_(std::move(blobs)) {}
  // As much of `n` as there is, across the blobs; short only at the end or on an error.
  size_t read(void* out, size_t n) override {
    size_t done = 0;
    while (done < n) {
      if (at_ == size_ && !next_blob()) break;
      const uint64_t k = std::min<uint64_t>(n - done, size_ - at_);
      blob_->read(static_cast<unsigned char*>(out) + done, k, at_);
      at_ += k;
      done += k;
    }
    return done;
  }
  const std::string& name() const override { return name_; }

 private:
  // Not the trace's end when a blob cannot be opened: that throws, rather than read as a
  // trace cut short.
  bool next_blob() {
    if (next_ == blobs_.ids.size()) return false;
    blob_.reset();
    blob_ = db_->open_blob(blobs_.table, blobs_.ids[next_++], what_);
    size_ = blob_->size();
    at_ = 0;
    return true;
  }

  std::string name_, what_;
  std::unique_ptr<db::Connection> db_;
  TraceBlobs blobs_;
  size_t next_ = 0;
  std::unique_ptr<db::BlobReader> blob_;
  uint64_t size_ = 0, at_ = 0;
};

}  // namespace

bool Store::has_trace(int64_t run_id) const {
  return !trace_blobs(*db_, run_id).ids.empty();
}

std::unique_ptr<TraceSource> Store::open_trace(int64_t run_id) const {
  TraceBlobs blobs = trace_blobs(*db_, run_id);
  if (blobs.ids.empty()) throw StoreError(path_ + ": " + run_name(run_id) + " has no trace");
  // A connection of its own waits as the store's does: another may be opening the store at
  // the same moment (quartz predict reads the trace twice at once).
  return std::make_unique<StoredTrace>(db_->open_reader(), run_id, std::move(blobs));
}

void Store::add_prediction(int64_t run_id, const std::string& question, const std::string& json,
                           int64_t made_realtime_ns) {
  if (made_realtime_ns == 0) {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    made_realtime_ns = static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
  }
  const tables::PredictionRow row{made_realtime_ns, question, json};
  RowInsert<tables::kPredictions>(*db_, "cannot store a prediction for " + run_name(run_id))
      .add(row, run_id);
}

std::vector<StoredPrediction> Store::predictions(int64_t run_id) const {
  auto rows = db_->prepare(
      select_sql(tables::kPredictions, std::string("WHERE run_id = ? ORDER BY ") + db_->row_id()),
      "cannot read the predictions of " + run_name(run_id));
  rows->bind(1, run_id);
  std::vector<StoredPrediction> out;
  tables::PredictionRow row;
  while (rows->step()) {
    read_row<tables::kPredictions>(*rows, row);
    out.push_back({local_time(row.made_realtime_ns), row.question, row.json, row.made_realtime_ns});
  }
  return out;
}

}  // namespace quartz::profile
