#include "viewer/models/procedure_table_model.h"

namespace quartz::viewer {

ProcedureTableModel::ProcedureTableModel(std::shared_ptr<const RunData> run, QObject* parent)
    : ColumnTableModel(parent), run_(std::move(run)) {
  if (!run_) return;
  const analysis::ProfileView& v = run_->view;
  auto p = [&v](int row) -> const analysis::ProcedureRow& { return v.procedures[size_t(row)]; };
  set_columns({
      {"Procedure", "The procedure (demangled)", Format::Text,
       [=](int row) { return QString::fromStdString(p(row).name); }},
      {"Normalized",
       "Normalized processor time: the procedure's own and everything done on its behalf",
       Format::Seconds, [=](int row) { return p(row).totals.normalized_s; }},
      {"% elapsed", "Normalized time as a share of the run's elapsed time", Format::Percent,
       [=, &v](int row) { return share_cell(v.share_of_elapsed(p(row).totals.normalized_s)); }},
      {"Self", "Normalized processor time in the procedure's own code", Format::Seconds,
       [=](int row) { return p(row).totals.normalized_self_s; }},
      {"Processor", "Plain processor time, self and on its behalf (what gprof ranks by)",
       Format::Seconds, [=](int row) { return p(row).totals.processor_s; }},
      {"Calls", "Calls to the procedure, from the call graph", Format::Count,
       [=](int row) { return static_cast<qulonglong>(p(row).calls); }},
      {"Location", "Source file and line, or the module", Format::Text,
       [=](int row) { return QString::fromStdString(p(row).location); }},
  });
  set_key([=](int row) { return static_cast<qulonglong>(p(row).address); });
  set_kind([](int) { return static_cast<uint32_t>(capture::kProcedure); });
  reset_rows(static_cast<int>(v.procedures.size()));
}

int ProcedureTableModel::row_of(uint64_t address) const {
  if (!run_) return -1;
  const auto& procedures = run_->view.procedures;
  for (size_t i = 0; i < procedures.size(); ++i) {
    if (procedures[i].address == address) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace quartz::viewer
