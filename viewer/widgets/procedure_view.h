// The flat procedure table, ranked by normalized time, with the selected procedure's
// callers and callees below it: Enter on a caller or callee selects it (walking the call
// graph); Enter on a procedure shows its heaviest calling context in the hierarchy.
#pragma once

#include <memory>

#include "viewer/models/procedure_table_model.h"
#include "viewer/widgets/profile_tab.h"

class QSplitter;

namespace quartz::viewer {

class CallGraphPanel;
class FilterBar;
class RankedTable;

class ProcedureView : public ProfileTab {
  Q_OBJECT

 public:
  explicit ProcedureView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
  QVariant current_key() const override;  // the address
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override;
  void focus_search() override;
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  bool select_procedure(uint64_t address);
  RankedTable* table() const { return table_; }
  CallGraphPanel* callers() const { return callers_; }
  CallGraphPanel* callees() const { return callees_; }
  FilterBar* filter_bar() const { return filter_; }

 private:
  void on_current(const QModelIndex& source_index);
  void on_call_graph(uint64_t address, uint32_t kind);

  std::shared_ptr<const RunData> run_;
  std::unique_ptr<ProcedureTableModel> model_;
  FilterBar* filter_;
  RankedTable* table_;
  CallGraphPanel* callers_;
  CallGraphPanel* callees_;
  QSplitter* vertical_;
  QSplitter* horizontal_;
};

}  // namespace quartz::viewer
