#include "viewer/models/context_tree_model.h"

#include <QBrush>
#include <QColor>
#include <algorithm>

#include "viewer/models/roles.h"
#include "viewer/palette.h"

namespace quartz::viewer {

namespace {

constexpr quintptr kProgramSlot = 0;

std::vector<Column> tree_columns(const analysis::ProfileView& v) {
  // node: ContextTreeModel::kProgramNode or a context index.
  auto context = [&v](int node) -> const analysis::ContextRow& {
    return v.contexts[static_cast<size_t>(node)];
  };
  return {
      {"Calling context",
       "The procedures and synchronization objects on the way from the program's start",
       Format::Text,
       [=, &v](int node) {
         return node < 0 ? QVariant("<program>")
                         : QVariant(QString::fromStdString(v.name_of(context(node))));
       },
       [=, &v](int node) {
         if (node < 0) return QStringLiteral("<program>");
         const analysis::ContextRow& c = context(node);
         QString name = QString::fromStdString(v.name_of(c));
         if (c.kind != capture::kProcedure)
           name += " (" + QString::fromStdString(analysis::kind_name(c.kind)) + ")";
         return name;
       }},
      {"Normalized",
       "Normalized processor time of this context and everything below it (self and on its behalf)",
       Format::Seconds,
       [=, &v](int node) {
         return node < 0 ? v.program_totals.normalized_s : context(node).normalized_s;
       }},
      {"% elapsed", "Normalized time as a share of the run's elapsed time", Format::Percent,
       [=, &v](int node) {
         return share_cell(v.share_of_elapsed(node < 0 ? v.program_totals.normalized_s
                                                       : context(node).normalized_s));
       }},
      {"Self", "Normalized processor time in this context's own code", Format::Seconds,
       [=, &v](int node) {
         return node < 0 ? QVariant() : QVariant(context(node).normalized_self_s);
       }},
      {"Processor", "Plain processor time of the context and everything below it", Format::Seconds,
       [=, &v](int node) {
         return node < 0 ? v.program_totals.processor_s : context(node).processor_s;
       }},
      {"Calls",
       "Calls to this procedure from its caller (from the call graph: all of the caller's "
       "contexts)",
       Format::Count,
       [=](int node) {
         if (node < 0 || context(node).kind != capture::kProcedure) return QVariant();
         return QVariant(static_cast<qulonglong>(context(node).calls));
       }},
  };
}

}  // namespace

ContextTreeModel::ContextTreeModel(std::shared_ptr<const RunData> run, QObject* parent)
    : QAbstractItemModel(parent), run_(std::move(run)) {
  if (!run_) return;
  const std::vector<analysis::ContextRow>& contexts = run_->view.contexts;
  columns_ = tree_columns(run_->view);
  const size_t n = contexts.size();
  auto slot_of_parent = [&](const analysis::ContextRow& c) -> size_t {
    return c.parent == capture::kNoParent ? kProgramSlot : size_t{c.parent} + 1;
  };
  // Counting sort by parent slot, then each parent's range by normalized time.
  child_begin_.assign(n + 2, 0);
  for (const analysis::ContextRow& c : contexts) ++child_begin_[slot_of_parent(c) + 1];
  for (size_t s = 1; s < child_begin_.size(); ++s) child_begin_[s] += child_begin_[s - 1];
  children_.resize(n);
  std::vector<uint32_t> next(child_begin_.begin(), child_begin_.end() - 1);
  for (size_t i = 0; i < n; ++i)
    children_[next[slot_of_parent(contexts[i])]++] = static_cast<uint32_t>(i);
  row_.resize(n);
  for (size_t s = 0; s + 1 < child_begin_.size(); ++s) {
    auto first = children_.begin() + child_begin_[s],
         last = children_.begin() + child_begin_[s + 1];
    std::stable_sort(first, last, [&](uint32_t a, uint32_t b) {
      return contexts[a].normalized_s > contexts[b].normalized_s;
    });
    for (auto it = first; it != last; ++it) row_[*it] = static_cast<uint32_t>(it - first);
  }
}

QModelIndex ContextTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  if (!parent.isValid()) return createIndex(row, column, kProgramSlot);
  const uint32_t child = children_[child_begin_[parent.internalId()] + size_t(row)];
  return createIndex(row, column, quintptr{child} + 1);
}

QModelIndex ContextTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kProgramSlot) return {};
  const uint32_t up = run_->view.contexts[child.internalId() - 1].parent;
  if (up == capture::kNoParent) return createIndex(0, 0, kProgramSlot);
  return createIndex(static_cast<int>(row_[up]), 0, quintptr{up} + 1);
}

int ContextTreeModel::rowCount(const QModelIndex& parent) const {
  if (!run_) return 0;
  if (!parent.isValid()) return 1;
  if (parent.column() != 0) return 0;
  return static_cast<int>(child_count(parent.internalId()));
}

int ContextTreeModel::columnCount(const QModelIndex&) const {
  return static_cast<int>(columns_.size());
}

bool ContextTreeModel::hasChildren(const QModelIndex& parent) const {
  return rowCount(parent) > 0;
}

QVariant ContextTreeModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const int n = node(index);
  if (role == KeyRole) return n;
  const analysis::ContextRow* context = n < 0 ? nullptr : &run_->view.contexts[size_t(n)];
  if (role == KindRole) return context ? QVariant(context->kind) : QVariant();
  if (role == Qt::ForegroundRole && context && context->kind != capture::kProcedure) {
    return QBrush(palette::kObject);  // objects stand out from procedures
  }
  if (role == Qt::ToolTipRole && index.column() == kName) {
    return column_data(columns_[kName], n, Qt::DisplayRole);
  }
  return column_data(columns_[size_t(index.column())], n, role);
}

QVariant ContextTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) {
    return QAbstractItemModel::headerData(section, orientation, role);
  }
  return column_header(columns_[size_t(section)], role);
}

int ContextTreeModel::node(const QModelIndex& index) const {
  return index.isValid() ? static_cast<int>(index.internalId()) - 1 : kProgramNode;
}

QModelIndex ContextTreeModel::index_of(int node, int column) const {
  if (!run_) return {};
  if (node < 0) return createIndex(0, column, kProgramSlot);
  return createIndex(static_cast<int>(row_[size_t(node)]), column, quintptr(node) + 1);
}

const std::vector<int>& ContextTreeModel::contexts_of(uint64_t address, bool object) const {
  if (listed_ == std::pair{address, object}) return listed_contexts_;
  listed_contexts_.clear();
  if (run_) {
    const std::vector<analysis::ContextRow>& contexts = run_->view.contexts;
    for (size_t i = 0; i < contexts.size(); ++i) {
      if (contexts[i].address == address && (contexts[i].kind != capture::kProcedure) == object)
        listed_contexts_.push_back(static_cast<int>(i));
    }
    std::stable_sort(listed_contexts_.begin(), listed_contexts_.end(), [&](int a, int b) {
      return contexts[size_t(a)].normalized_s > contexts[size_t(b)].normalized_s;
    });
  }
  listed_ = std::pair{address, object};
  return listed_contexts_;
}

QModelIndex ContextTreeModel::heaviest_child(const QModelIndex& parent) const {
  return rowCount(parent) > 0 ? index(0, 0, parent) : QModelIndex();
}

}  // namespace quartz::viewer
