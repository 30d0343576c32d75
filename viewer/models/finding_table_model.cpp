#include "viewer/models/finding_table_model.h"

#include <QBrush>
#include <QFont>

#include "viewer/palette.h"

namespace quartz::viewer {

namespace {

constexpr double kMinSeverity = 0.01;  // `quartz diagnose`'s default --min-severity 1

}  // namespace

FindingTableModel::FindingTableModel(std::shared_ptr<const RunData> run, QObject* parent)
    : FindingTableModel(
          run ? analysis::diagnose(run->view, kMinSeverity) : std::vector<analysis::Finding>{},
          parent) {}

FindingTableModel::FindingTableModel(std::vector<analysis::Finding> findings, QObject* parent)
    : ColumnTableModel(parent), findings_(std::move(findings)) {
  set_up();
}

void FindingTableModel::set_up() {
  auto f = [this](int row) -> const analysis::Finding& { return findings_[size_t(row)]; };
  auto text = [](const std::string& s) { return QString::fromStdString(s); };
  set_columns({
      {"Finding", "The performance property that holds (docs/design.md, Diagnosis)", Format::Text,
       [=](int row) { return text(analysis::property_name(f(row).property)); }},
      {"Subject", "The procedure, object or threads it holds for; Enter opens it in its view",
       Format::Text, [=](int row) { return text(f(row).subject); }},
      {"Severity", "The share of the elapsed time it explains", Format::Percent,
       [=](int row) { return f(row).severity; }},
      {"Confidence",
       "0..1: the sampling periods behind it, torn stacks, the profiler's intrusion, and "
       "whether the run ended normally",
       Format::Decimal, [=](int row) { return f(row).confidence; }},
      {"Evidence", "The figures that show it", Format::Text,
       [=](int row) { return text(f(row).evidence); }},
      {"Advice", "What to do about it", Format::Text, [=](int row) { return text(f(row).advice); }},
      {"Location", "The procedure's source location", Format::Text,
       [=](int row) { return text(f(row).location); }},
  });
  set_key([](int row) { return row; });
  set_kind([=](int row) { return int(f(row).property); });
  // Findings about the measurement, not the program: greyed, after the program's.
  set_row_role([=](int row, int role) -> QVariant {
    const bool measurement = analysis::about_measurement(f(row).property);
    if (role == Qt::ForegroundRole && measurement) return QBrush(palette::kRecorded);
    if (role == Qt::ToolTipRole) {
      return text((measurement ? "About the measurement: " : "") + f(row).evidence + "\n→ " +
                  f(row).advice);
    }
    return {};
  });
  reset_rows(static_cast<int>(findings_.size()));
}

}  // namespace quartz::viewer
