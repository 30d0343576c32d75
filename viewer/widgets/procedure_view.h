// The flat procedure table, ranked by normalized time, with the selected procedure's
// callers and callees below it: Enter on a caller or callee selects it (walking the call
// graph); Enter on a procedure shows its heaviest calling context in the hierarchy.
#pragma once

#include "viewer/models/procedure_table_model.h"
#include "viewer/widgets/ranked_tab.h"

class QSplitter;

namespace quartz::viewer {

class CallGraphPanel;

class ProcedureView : public RankedTab {
  Q_OBJECT

 public:
  explicit ProcedureView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  bool select_procedure(uint64_t address);
  CallGraphPanel* callers() const { return callers_; }
  CallGraphPanel* callees() const { return callees_; }

 private:
  void on_current(const QModelIndex& source_index);
  void on_call_graph(uint64_t address, uint32_t kind);

  CallGraphPanel* callers_;
  CallGraphPanel* callees_;
  QSplitter* vertical_;
  QSplitter* horizontal_;
};

}  // namespace quartz::viewer
