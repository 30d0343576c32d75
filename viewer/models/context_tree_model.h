// The calling-context tree, top-down: a "<program>" row (the whole run) above the contexts
// that start at a thread's root. A lazy model over ProfileView::contexts: the children of
// every node are precomputed once as index ranges (heaviest first), so a tree of 100,000
// contexts costs a few vectors and the view asks only for the rows it shows.
#pragma once

#include <QAbstractItemModel>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "viewer/loading/run_data.h"
#include "viewer/models/column_model.h"

namespace quartz::viewer {

class ContextTreeModel : public QAbstractItemModel {
 public:
  enum ColumnId { kName, kNormalized, kShare, kSelf, kProcessor, kCalls, kColumnCount };
  static constexpr int kProgramNode = -1;

  explicit ContextTreeModel(std::shared_ptr<const RunData> run, QObject* parent = nullptr);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  bool hasChildren(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // kProgramNode for the program row, else an index into ProfileView::contexts.
  int node(const QModelIndex& index) const;
  QModelIndex index_of(int node, int column = 0) const;
  // The contexts of a procedure (object = false) or an object, heaviest first; valid until
  // the next call asks for another.
  const std::vector<int>& contexts_of(uint64_t address, bool object) const;
  // The child with the most normalized time, or an invalid index for a leaf.
  QModelIndex heaviest_child(const QModelIndex& parent) const;

 private:
  // Slots number the program row 0 and context i as i + 1 (also the indexes' internal id).
  size_t child_count(size_t slot) const { return child_begin_[slot + 1] - child_begin_[slot]; }

  std::shared_ptr<const RunData> run_;
  std::vector<Column> columns_;
  std::vector<uint32_t> child_begin_;  // slot -> first of its children in children_
  std::vector<uint32_t> children_;     // context indexes, grouped by parent, heaviest first
  std::vector<uint32_t> row_;          // context index -> its row under its parent
  // The contexts of the procedure or object last asked for (contexts_of), listed by a pass
  // over the rows when asked: an index of every procedure's took a tenth of the time a run
  // of millions of contexts took to open.
  mutable std::optional<std::pair<uint64_t, bool>> listed_;
  mutable std::vector<int> listed_contexts_;
};

}  // namespace quartz::viewer
