#include "viewer/loading/series_data.h"

#include <sched.h>

#include "profile/open_run.h"
#include "profile/store.h"

namespace quartz::viewer {

namespace {

uint32_t allowed_processors() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  return static_cast<uint32_t>(CPU_COUNT(&set));
}

}  // namespace

std::optional<SeriesData> load_series(const RunData& run) {
  if (!run.id) return std::nullopt;
  SeriesData out;
  std::vector<analysis::ProfileView> views;
  try {
    const profile::Store store(run.source, profile::StoreAccess::read_only);
    const std::optional<int64_t> series = store.series_of(*run.id);
    if (!series) return std::nullopt;
    out.runs = store.series_runs(*series);
    for (int64_t id : out.runs) {
      profile::OpenedRun opened = profile::open_run(std::to_string(id), run.source);
      views.push_back(analysis::analyze_taking_contexts(opened.run));
    }
  } catch (const std::exception& e) {
    throw LoadError(one_line(e.what()));
  }
  if (views.empty()) return std::nullopt;
  out.program = views.front().program;
  out.available = allowed_processors();
  out.scaling = analysis::scale(analysis::points_by_processors(std::move(views)));
  return out;
}

}  // namespace quartz::viewer
