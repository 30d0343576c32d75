#include "viewer/models/run_list_model.h"

namespace quartz::viewer {

RunListModel::RunListModel(std::vector<profile::RunSummary> runs, QObject* parent)
    : ColumnTableModel(parent), runs_(std::move(runs)) {
  auto r = [this](int row) -> const profile::RunSummary& { return runs_[size_t(row)]; };
  set_columns({
      {"Run", "The run's number in the store", Format::Count,
       [=](int row) { return static_cast<qlonglong>(r(row).id); }},
      {"Started", "", Format::Text,
       [=](int row) { return QString::fromStdString(r(row).started); }},
      {"Command", "", Format::Text,
       [=](int row) {
         return QString::fromStdString(r(row).arguments.empty() ? r(row).program
                                                                : r(row).arguments);
       }},
      {"P", "Processors available to the program", Format::Count,
       [=](int row) { return r(row).processors; }},
      {"Elapsed", "", Format::Seconds, [=](int row) { return r(row).elapsed_s; }},
      {"Samples", "", Format::Count,
       [=](int row) { return static_cast<qulonglong>(r(row).samples); }},
      {"Ended", "Whether the program ended normally (else: its last checkpoint)", Format::Text,
       [=](int row) {
         return r(row).final ? QStringLiteral("normally") : QStringLiteral("abnormally");
       }},
      {"Host", "The machine the run was made on", Format::Text,
       [=](int row) { return QString::fromStdString(r(row).host); }},
      {"Labels", "quartz run --label key=value", Format::Text,
       [=](int row) {
         QStringList labels;
         for (const auto& [key, value] : r(row).labels) {
           labels << QString::fromStdString(key + "=" + value);
         }
         return labels.join(' ');
       }},
  });
  set_key([=](int row) { return static_cast<qlonglong>(r(row).id); });
  reset_rows(static_cast<int>(runs_.size()));
}

}  // namespace quartz::viewer
