#include "viewer/models/what_if_list_model.h"

#include <QBrush>

#include "viewer/models/what_if_text.h"
#include "viewer/palette.h"

namespace quartz::viewer {

WhatIfListModel::WhatIfListModel(std::shared_ptr<const RunData> run, QObject* parent)
    : ColumnTableModel(parent), run_(std::move(run)) {
  auto w = [this](int row) -> const WhatIf& { return run_->what_ifs[size_t(row)]; };
  set_columns({
      {"Made", "When 'quartz predict' answered", Format::Text,
       [=](int row) { return QString::fromStdString(w(row).stored.made); }},
      {"Question", "What 'quartz predict' was asked", Format::Text,
       [=](int row) { return QString::fromStdString(w(row).stored.question); }},
      {"Model error",
       "Replayed as recorded against the recorded elapsed time: the model's error on what it "
       "saw (look at it before trusting the answers)",
       Format::Percent,
       [=](int row) -> QVariant {
         const auto& p = w(row).predictions;
         if (!p) return {};
         const std::optional<double> change = change_of(p->recorded_s, p->observed_s);
         return change ? QVariant(*change) : QVariant();
       },
       [=](int row) {
         const auto& p = w(row).predictions;
         return p ? signed_change(p->recorded_s, p->observed_s) : QStringLiteral("unreadable");
       }},
  });
  set_key([](int row) { return row; });
  set_row_role([=](int row, int role) -> QVariant {
    if (w(row).predictions) return {};
    if (role == Qt::ForegroundRole) return QBrush(palette::kBlocked);
    if (role == Qt::ToolTipRole) return QString::fromStdString(w(row).error);
    return {};
  });
  reset_rows(run_ ? static_cast<int>(run_->what_ifs.size()) : 0);
}

}  // namespace quartz::viewer
