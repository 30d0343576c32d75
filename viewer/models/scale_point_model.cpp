#include "viewer/models/scale_point_model.h"

namespace quartz::viewer {

ScalePointModel::ScalePointModel(std::shared_ptr<const SeriesData> series, QObject* parent)
    : ColumnTableModel(parent), series_(std::move(series)) {
  if (!series_) return;
  const analysis::Scaling& s = series_->scaling;
  auto at = [](const std::vector<double>& values, int row) { return values[size_t(row)]; };
  set_columns({
      {"Processors", "The processors the runs were allowed (their affinity)", Format::Count,
       [&s](int row) { return qulonglong(s.processors[size_t(row)]); }},
      {"Runs", "Repeats on this many processors", Format::Count,
       [&s](int row) { return qulonglong(s.runs[size_t(row)]); }},
      {"Elapsed", "Median elapsed time of the repeats", Format::Seconds,
       [=, &s](int row) { return at(s.elapsed_s, row); }},
      {"Fastest", "The repeats' shortest elapsed time", Format::Seconds,
       [=, &s](int row) { return at(s.min_s, row); }},
      {"Slowest", "The repeats' longest elapsed time", Format::Seconds,
       [=, &s](int row) { return at(s.max_s, row); }},
      {"Speedup", "Elapsed time on the fewest processors over this one's", Format::Decimal,
       [=, &s](int row) { return at(s.speedup, row); }},
      {"Ideal", "The speedup if every processor added were fully used", Format::Decimal,
       [=, &s](int row) { return at(s.ideal_speedup, row); }},
      {"Efficiency", "Speedup over ideal speedup (1 at the base)", Format::Decimal,
       [=, &s](int row) { return at(s.efficiency, row); }},
  });
  set_key([&s](int row) { return qulonglong(s.processors[size_t(row)]); });
  reset_rows(static_cast<int>(s.processors.size()));
}

}  // namespace quartz::viewer
