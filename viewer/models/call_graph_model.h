// Call-graph navigation for one procedure or object: its callees (how its normalized time
// divides among its children and itself, as in `quartz report`'s call graph) or its
// callers (the procedures it runs under, with the time it takes there). Both are summed
// from the view's rows as they are shown (analysis::call_graph): the viewer's view has no
// whole call graph, seconds and a third of a gigabyte for a run of millions of contexts.
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class CallGraphModel : public ColumnTableModel {
 public:
  enum Direction { kCallers, kCallees };
  enum ColumnId { kName, kNormalized, kShare, kCalls, kColumnCount };

  CallGraphModel(std::shared_ptr<const RunData> run, Direction direction,
                 QObject* parent = nullptr);

  // Shows the callers or callees of a procedure (object = false; address 0 is the program
  // root) or of an object (callers only: objects have no callees).
  void show(uint64_t address, bool object);

 private:
  struct Entry {
    uint64_t address = 0;  // the caller or callee; for "self", the procedure itself
    uint32_t kind = capture::kProcedure;
    QString name;
    const analysis::ChildRow* child = nullptr;  // the numbers, in graph_
  };

  std::shared_ptr<const RunData> run_;
  Direction direction_;
  analysis::CallGraph graph_;  // the part shown
  std::vector<Entry> entries_;
  std::map<uint64_t, QString> procedure_names_;  // of a model of callers
};

}  // namespace quartz::viewer
