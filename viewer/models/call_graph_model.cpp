#include "viewer/models/call_graph_model.h"

#include <QBrush>
#include <QColor>
#include <algorithm>

#include "viewer/palette.h"

namespace quartz::viewer {

namespace {

bool is_self(const analysis::ChildRow& row, uint64_t parent) {
  return row.is_self() && row.address == parent && row.kind == capture::kProcedure;
}

}  // namespace

CallGraphModel::CallGraphModel(std::shared_ptr<const RunData> run, Direction direction,
                               QObject* parent)
    : ColumnTableModel(parent), run_(std::move(run)), direction_(direction) {
  const bool callers = direction == kCallers;
  set_columns({
      {callers ? "Caller" : "Callee",
       callers ? "Procedures it runs under"
               : "Where its normalized time goes: its children, and itself (self)",
       Format::Text, [this](int row) { return entries_[size_t(row)].name; },
       [this](int row) {
         const Entry& e = entries_[size_t(row)];
         if (e.kind == capture::kProcedure) return e.name;
         return e.name + " (" + QString::fromStdString(analysis::kind_name(e.kind)) + ")";
       }},
      {"Normalized",
       callers ? "Its normalized time under this caller" : "The child's normalized time under it",
       Format::Seconds, [this](int row) { return entries_[size_t(row)].child->normalized_s; }},
      {callers ? "% of caller" : "Share",
       callers ? "Share of the caller's normalized time"
               : "Share of the procedure's normalized time",
       Format::Percent, [this](int row) { return entries_[size_t(row)].child->share; }},
      {"Calls", callers ? "Calls from the caller" : "Calls to the callee", Format::Count,
       [this](int row) {
         const uint64_t calls = entries_[size_t(row)].child->calls;
         return calls ? QVariant(static_cast<qulonglong>(calls)) : QVariant();
       }},
  });
  set_key([this](int row) { return static_cast<qulonglong>(entries_[size_t(row)].address); });
  set_kind([this](int row) { return entries_[size_t(row)].kind; });
  set_row_role([this](int row, int role) -> QVariant {
    if (role != Qt::ForegroundRole) return {};
    const Entry& e = entries_[size_t(row)];
    if (e.kind != capture::kProcedure) return QBrush(palette::kObject);
    if (e.child && is_self(*e.child, e.address) && direction_ == kCallees)
      return QBrush(QColor(0x60, 0x60, 0x60));
    return {};
  });
  if (!run_ || direction_ != kCallers) return;  // callees come from the analysis as they are
  procedure_names_[0] = QStringLiteral("<program>");
  for (const analysis::ProcedureRow& p : run_->view.procedures) {
    procedure_names_[p.address] = QString::fromStdString(p.name);
  }
}

void CallGraphModel::show(uint64_t address, bool object) {
  std::vector<Entry> entries;
  analysis::CallGraph graph;
  if (run_ && direction_ == kCallees && !object) {
    graph = analysis::call_graph(
        run_->view, [&](uint64_t parent, uint64_t, uint32_t) { return parent == address; });
    auto it = graph.find(address);
    if (it != graph.end()) {
      for (const analysis::ChildRow& child : it->second) {
        entries.push_back(
            {child.address, child.kind, QString::fromStdString(run_->view.name_of(child)), &child});
      }
    }
  } else if (run_ && direction_ == kCallers) {
    // The rows of every caller's children that are this procedure or object.
    graph = analysis::call_graph(run_->view, [&](uint64_t, uint64_t child, uint32_t kind) {
      return child == address && (kind != capture::kProcedure) == object;
    });
    std::vector<std::pair<uint64_t, const analysis::ChildRow*>> callers;
    for (const auto& [caller, children] : graph) {
      for (const analysis::ChildRow& child : children) {
        if (child.address == address && (child.kind != capture::kProcedure) == object &&
            !is_self(child, caller)) {
          callers.emplace_back(caller, &child);
        }
      }
    }
    std::stable_sort(callers.begin(), callers.end(), [](const auto& a, const auto& b) {
      return a.second->normalized_s > b.second->normalized_s;
    });
    for (const auto& [caller, child] : callers) {
      auto name = procedure_names_.find(caller);
      entries.push_back(
          {caller, capture::kProcedure,
           name != procedure_names_.end() ? name->second : QString::number(caller, 16), child});
    }
  }
  const int rows = static_cast<int>(entries.size());
  reset_rows(rows, [&] {
    entries_ = std::move(entries);
    graph_ = std::move(graph);  // the rows entries_ point to: a map's nodes stay put
  });
}

}  // namespace quartz::viewer
