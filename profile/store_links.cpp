// Links between the runs of one `quartz run --follow-exec` (schema version 4: run_links).
#include <sqlite3.h>

#include "profile/sqlite.h"
#include "profile/store.h"

namespace quartz::profile {
namespace {

// A store of version 3, opened read only, has no run_links table: no links.
bool has_links(sqlite3* db, const std::string& path) {
  Statement table(db, path,
                  "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_links'",
                  "cannot read the run links");
  return table.step();
}

}  // namespace

void Store::link_run(int64_t run_id, int64_t parent_run) {
  Statement link(db_.get(), path_,
                 "INSERT OR REPLACE INTO run_links (run_id, parent_run) VALUES (?, ?)",
                 "cannot link run " + std::to_string(run_id));
  link.bind(1, run_id);
  link.bind(2, parent_run);
  link.step();
}

std::optional<int64_t> Store::parent_run(int64_t run_id) const {
  if (!has_links(db_.get(), path_)) return std::nullopt;
  Statement row(db_.get(), path_, "SELECT parent_run FROM run_links WHERE run_id = ?",
                "cannot read the run links");
  row.bind(1, run_id);
  if (!row.step()) return std::nullopt;
  return row.integer(0);
}

std::vector<int64_t> Store::child_runs(int64_t run_id) const {
  std::vector<int64_t> children;
  if (!has_links(db_.get(), path_)) return children;
  Statement rows(db_.get(), path_,
                 "SELECT run_id FROM run_links WHERE parent_run = ? ORDER BY run_id",
                 "cannot read the run links");
  rows.bind(1, run_id);
  while (rows.step()) children.push_back(rows.integer(0));
  return children;
}

}  // namespace quartz::profile
