#include "viewer/models/change_table_model.h"

#include <QBrush>

#include "viewer/models/comparison_text.h"
#include "viewer/palette.h"

namespace quartz::viewer {

ChangeTableModel::ChangeTableModel(std::vector<analysis::Change> changes, QObject* parent)
    : ColumnTableModel(parent), changes_(std::move(changes)) {
  auto c = [this](int row) -> const analysis::Change& { return changes_[size_t(row)]; };
  set_columns({
      {"Name", "Matched by name in the two runs", Format::Text,
       [=](int row) { return QString::fromStdString(c(row).name); }},
      {"A", "Normalized time in the run compared with", Format::Seconds,
       [=](int row) { return c(row).a_s; }},
      {"B", "Normalized time in this run", Format::Seconds, [=](int row) { return c(row).b_s; }},
      {"Change", "(B − A) / A; \"new\" when A had none", Format::Percent,
       [=](int row) -> QVariant {
         const std::optional<double> r = c(row).relative();
         return r ? QVariant(*r) : QVariant();
       },
       [=](int row) { return relative_change(c(row)); }},
      {"Noise",
       "The change the runs' sampling alone could make (docs/design.md, Comparison): the "
       "change exceeds it",
       Format::Seconds, [=](int row) { return c(row).noise_s; }},
      {"Location", "The procedure's source location", Format::Text,
       [=](int row) { return QString::fromStdString(c(row).location); }},
  });
  set_key([](int row) { return row; });
  set_row_role([=](int row, int role) -> QVariant {
    if (role != Qt::ForegroundRole) return {};
    return QBrush(c(row).b_s > c(row).a_s ? palette::kSlower : palette::kFaster);
  });
  reset_rows(static_cast<int>(changes_.size()));
}

}  // namespace quartz::viewer
