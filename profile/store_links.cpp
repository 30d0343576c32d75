// Relations between runs: the programs of one `quartz run --follow-exec` (schema version 4:
// run_links) and the series of one `quartz scale` (version 5: run_series).
#include "profile/store.h"
#include "profile/store_rows.h"
#include "profile/store_tables.h"

namespace quartz::profile {

using rows::OnConflict;
using rows::RowInsert;

namespace {

// The run ids one query over `table` gives for `id` (none when an older store, opened read
// only, lacks the table).
std::vector<int64_t> ids(db::Connection& db, const char* table, const char* sql, int64_t id,
                         const std::string& what) {
  std::vector<int64_t> out;
  if (!db.has_table(table)) return out;
  auto rows = db.prepare(sql, what);
  rows->bind(1, id);
  while (rows->step()) out.push_back(rows->integer(0));
  return out;
}

std::optional<int64_t> first(const std::vector<int64_t>& ids) {
  return ids.empty() ? std::nullopt : std::optional<int64_t>(ids.front());
}

}  // namespace

void Store::link_run(int64_t run_id, int64_t parent_run) {
  RowInsert<tables::kRunLinks>(*db_, "cannot link run " + std::to_string(run_id),
                               OnConflict::replace)
      .add({}, run_id, parent_run);
}

std::optional<int64_t> Store::parent_run(int64_t run_id) const {
  return first(ids(*db_, "run_links", "SELECT parent_run FROM run_links WHERE run_id = ?", run_id,
                   "cannot read the run links"));
}

std::vector<int64_t> Store::child_runs(int64_t run_id) const {
  return ids(*db_, "run_links", "SELECT run_id FROM run_links WHERE parent_run = ? ORDER BY run_id",
             run_id, "cannot read the run links");
}

void Store::add_to_series(int64_t run_id, int64_t series) {
  RowInsert<tables::kRunSeries>(*db_, "cannot add run " + std::to_string(run_id) + " to its series",
                                OnConflict::replace)
      .add({}, run_id, series);
}

std::optional<int64_t> Store::series_of(int64_t run_id) const {
  return first(ids(*db_, "run_series", "SELECT series FROM run_series WHERE run_id = ?", run_id,
                   "cannot read the run series"));
}

std::vector<int64_t> Store::series_runs(int64_t series) const {
  return ids(*db_, "run_series", "SELECT run_id FROM run_series WHERE series = ? ORDER BY run_id",
             series, "cannot read the run series");
}

}  // namespace quartz::profile
