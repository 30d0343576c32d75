// Callers or callees of the selected procedure (or the procedures an object is taken in),
// with a title naming whose they are. Enter or double-click walks the call graph.
#pragma once

#include <QWidget>
#include <memory>

#include "viewer/loading/run_data.h"
#include "viewer/models/call_graph_model.h"

class QLabel;

namespace quartz::viewer {

class RankedTable;

class CallGraphPanel : public QWidget {
  Q_OBJECT

 public:
  CallGraphPanel(CallGraphModel::Direction direction, QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run);
  void show_for(uint64_t address, bool object, const QString& name);
  RankedTable* table() const { return table_; }
  CallGraphModel* model() const { return model_.get(); }

 signals:
  // A caller or callee was activated: a procedure (kind 0) or an object.
  void activated(uint64_t address, uint32_t kind);

 private:
  CallGraphModel::Direction direction_;
  QLabel* title_;
  RankedTable* table_;
  std::unique_ptr<CallGraphModel> model_;
};

}  // namespace quartz::viewer
