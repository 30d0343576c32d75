// The top-down calling-context tree (the Quartz paper's method: start at the program, walk
// down to the few procedures and locks that cost elapsed time). Opens with the heaviest
// path expanded; Ctrl+E expands it from any row; Enter on a procedure or object opens it
// in its own view; F3 goes to the next context of the same procedure.
#pragma once

#include <QTreeView>
#include <functional>
#include <memory>

#include "viewer/models/context_tree_model.h"
#include "viewer/models/filter_proxy.h"
#include "viewer/widgets/profile_tab.h"

namespace quartz::viewer {

class HierarchyView : public ProfileTab {
  Q_OBJECT

 public:
  explicit HierarchyView(QWidget* parent = nullptr);

  void set_run(std::shared_ptr<const RunData> run) override;
  std::optional<Selection> selection() const override;
  QVariant current_key() const override;  // the context index (-1: the program)
  bool select_key(const QVariant& key) override;
  const QAbstractItemModel* export_model() const override { return proxy_; }
  QWidget* main_widget() const override;
  void save_state(QSettings& settings) const override;
  void restore_state(const QSettings& settings) override;

  QTreeView* tree() const { return tree_; }
  ContextTreeModel* model() const { return model_.get(); }
  ProfileFilterProxy* proxy() const { return proxy_; }
  int current_node() const;  // ContextTreeModel::kProgramNode when nothing else is selected

  // Selects a context (expanding its ancestors, clearing filters that hide it).
  bool select_node(int node);
  // Selects the heaviest context of a procedure or object; called again with the same
  // one, the next heaviest. False when it has none.
  bool show_contexts_of(uint64_t address, bool object);
  // Expands from the selected row along the heaviest children and selects the last.
  void expand_heaviest_path();
  // The next context (by normalized time) of the selected row's procedure or object.
  bool next_context();
  // Shows only the contexts whose name contains `text` (with the way to them and what is
  // below them), opens the way to the heaviest matches and selects the heaviest.
  void search(const QString& text);

 private:
  void filter_search(const QString& text) override { search(text); }
  void filter_minimum(double seconds) override;
  void expand_initial_path();
  // Changes the filter with the tree closed, then reopens the way to the selected row.
  void refilter(const std::function<void()>& change);

  std::unique_ptr<ContextTreeModel> model_;
  ProfileFilterProxy* proxy_;
  QTreeView* tree_;
  QByteArray saved_header_;  // applied when a run gives the header its columns
};

}  // namespace quartz::viewer
