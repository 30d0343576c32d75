// Relations between runs: the programs of one `quartz run --follow-exec` (schema version 4:
// run_links) and the series of one `quartz scale` (version 5: run_series).
#include <sqlite3.h>

#include "profile/sqlite.h"
#include "profile/store.h"

namespace quartz::profile {

void Store::link_run(int64_t run_id, int64_t parent_run) {
  Statement link(db_.get(), path_,
                 "INSERT OR REPLACE INTO run_links (run_id, parent_run) VALUES (?, ?)",
                 "cannot link run " + std::to_string(run_id));
  link.bind(1, run_id);
  link.bind(2, parent_run);
  link.step();
}

std::optional<int64_t> Store::parent_run(int64_t run_id) const {
  if (!sqlite::has_table(db_.get(), path_, "run_links")) return std::nullopt;
  Statement row(db_.get(), path_, "SELECT parent_run FROM run_links WHERE run_id = ?",
                "cannot read the run links");
  row.bind(1, run_id);
  if (!row.step()) return std::nullopt;
  return row.integer(0);
}

std::vector<int64_t> Store::child_runs(int64_t run_id) const {
  std::vector<int64_t> children;
  if (!sqlite::has_table(db_.get(), path_, "run_links")) return children;
  Statement rows(db_.get(), path_,
                 "SELECT run_id FROM run_links WHERE parent_run = ? ORDER BY run_id",
                 "cannot read the run links");
  rows.bind(1, run_id);
  while (rows.step()) children.push_back(rows.integer(0));
  return children;
}

void Store::add_to_series(int64_t run_id, int64_t series) {
  Statement add(db_.get(), path_,
                "INSERT OR REPLACE INTO run_series (run_id, series) VALUES (?, ?)",
                "cannot add run " + std::to_string(run_id) + " to its series");
  add.bind(1, run_id);
  add.bind(2, series);
  add.step();
}

std::optional<int64_t> Store::series_of(int64_t run_id) const {
  if (!sqlite::has_table(db_.get(), path_, "run_series")) return std::nullopt;
  Statement row(db_.get(), path_, "SELECT series FROM run_series WHERE run_id = ?",
                "cannot read the run series");
  row.bind(1, run_id);
  if (!row.step()) return std::nullopt;
  return row.integer(0);
}

std::vector<int64_t> Store::series_runs(int64_t series) const {
  std::vector<int64_t> runs;
  if (!sqlite::has_table(db_.get(), path_, "run_series")) return runs;
  Statement rows(db_.get(), path_, "SELECT run_id FROM run_series WHERE series = ? ORDER BY run_id",
                 "cannot read the run series");
  rows.bind(1, series);
  while (rows.step()) runs.push_back(rows.integer(0));
  return runs;
}

}  // namespace quartz::profile
