#include "viewer/models/region_scaling_model.h"

#include <QBrush>

#include "viewer/palette.h"

namespace quartz::viewer {

RegionScalingModel::RegionScalingModel(std::shared_ptr<const SeriesData> series, QObject* parent)
    : ColumnTableModel(parent), series_(std::move(series)) {
  if (!series_) return;
  const analysis::Scaling& s = series_->scaling;
  auto r = [&s](int row) -> const analysis::RegionScaling& { return s.regions[size_t(row)]; };
  const QString most = QString::number(s.processors.empty() ? 0 : s.processors.back());
  std::vector<Column> columns{
      {"Kind", "Procedure (its own time), synchronization object or thread", Format::Text,
       [=](int row) { return QString::fromStdString(r(row).kind); }},
      {"Name", "Matched by name across the series' runs; Enter opens it in this run", Format::Text,
       [=](int row) { return QString::fromStdString(r(row).name); }},
      {"Lost at " + most,
       "Processor capacity it took beyond the base's on " + most +
           " processors: normalized time × processors, less the base's",
       Format::Seconds, [=](int row) { return r(row).lost_s.back(); }},
      {"Non-scalability",
       "Mean minus minimum efficiency above the base; known with two processor counts above "
       "it",
       Format::Decimal,
       [=, &s](int row) {
         return s.non_scalability_known ? QVariant(r(row).non_scalability) : QVariant();
       }},
  };
  for (size_t i = 0; i < s.processors.size(); ++i) {
    const QString p = QString::number(s.processors[i]);
    columns.emplace_back("Efficiency " + p,
                         "Its efficiency on " + p +
                             " processors: its normalized time on the base × base processors "
                             "over its time here × " +
                             p + " (0: no time there)",
                         Format::Decimal, [=](int row) { return r(row).efficiency[i]; });
  }
  columns.emplace_back("Location", "The procedure's source location", Format::Text,
                       [=](int row) { return QString::fromStdString(r(row).location); });
  set_columns(std::move(columns));
  set_key([](int row) { return row; });
  set_row_role([=](int row, int role) -> QVariant {
    if (role == Qt::ForegroundRole && r(row).kind == "object") return QBrush(palette::kObject);
    return {};
  });
  reset_rows(static_cast<int>(s.regions.size()));
}

int RegionScalingModel::row_of(const QString& name) const {
  if (!series_) return -1;
  const auto& regions = series_->scaling.regions;
  for (size_t i = 0; i < regions.size(); ++i) {
    if (regions[i].name == name.toStdString()) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace quartz::viewer
