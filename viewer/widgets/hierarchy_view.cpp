#include "viewer/widgets/hierarchy_view.h"

#include <QHeaderView>
#include <algorithm>

#include "viewer/models/roles.h"
#include "viewer/widgets/filter_bar.h"
#include "viewer/widgets/share_bar_delegate.h"

namespace quartz::viewer {

namespace {

// Opening a run expands the heaviest path while it stays this large a share of elapsed.
constexpr double kInitialPathShare = 0.05;
constexpr int kMaxPathDepth = 64;
// A search expands the way to this many of its heaviest matches.
constexpr size_t kExpandedMatches = 100;

}  // namespace

HierarchyView::HierarchyView(QWidget* parent)
    : ProfileTab(parent, kFiltered),
      proxy_(new ProfileFilterProxy(ContextTreeModel::kName, ContextTreeModel::kNormalized, this)),
      tree_(new QTreeView(this)) {
  tree_->setModel(proxy_);
  tree_->setUniformRowHeights(true);  // scrolling 100,000 rows must not measure each one
  tree_->setSortingEnabled(true);
  tree_->setAlternatingRowColors(true);
  tree_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  tree_->setTextElideMode(Qt::ElideMiddle);
  tree_->setExpandsOnDoubleClick(false);  // double-click opens the procedure, like Enter
  tree_->header()->setStretchLastSection(false);
  tree_->header()->setSectionsMovable(true);
  tree_->setItemDelegateForColumn(ContextTreeModel::kShare, new ShareBarDelegate(this));
  set_body(tree_);

  connect(tree_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &HierarchyView::selection_changed);
  connect(tree_, &QAbstractItemView::activated, this, [this](const QModelIndex& index) {
    const int node =
        model_ ? model_->node(proxy_->mapToSource(index)) : ContextTreeModel::kProgramNode;
    if (node < 0) return;
    const analysis::ContextRow& c = run_->view.contexts[size_t(node)];
    if (c.kind == capture::kProcedure) {
      emit open_procedure(c.address);
    } else {
      emit open_lock(c.address);
    }
  });
  set_run(nullptr);
}

void HierarchyView::set_run(std::shared_ptr<const RunData> run) {
  if (run_) saved_header_ = tree_->header()->saveState();  // the next run keeps the layout
  run_ = std::move(run);
  auto model = std::make_unique<ContextTreeModel>(run_);
  proxy_->setSourceModel(model.get());
  model_ = std::move(model);
  if (!run_) return;
  QHeaderView* header = tree_->header();
  if (saved_header_.isEmpty() || !header->restoreState(saved_header_)) {
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('m'));
    tree_->setColumnWidth(ContextTreeModel::kName, 30 * em);
    for (int column = ContextTreeModel::kNormalized; column < ContextTreeModel::kColumnCount;
         ++column) {
      tree_->setColumnWidth(column, 8 * em);
    }
    header->setSortIndicator(ContextTreeModel::kNormalized, Qt::DescendingOrder);
  }
  tree_->sortByColumn(header->sortIndicatorSection(), header->sortIndicatorOrder());
  expand_initial_path();
}

void HierarchyView::expand_initial_path() {
  QModelIndex at = proxy_->index(0, 0);
  tree_->setCurrentIndex(at);
  const double elapsed = run_->view.elapsed_s;
  for (int depth = 0; at.isValid() && depth < kMaxPathDepth; ++depth) {
    tree_->expand(at);
    const QModelIndex next = proxy_->mapFromSource(model_->heaviest_child(proxy_->mapToSource(at)));
    if (!next.isValid() || elapsed <= 0 ||
        next.siblingAtColumn(ContextTreeModel::kNormalized).data(NumberRole).toDouble() <
            kInitialPathShare * elapsed) {
      break;
    }
    at = next;
  }
}

int HierarchyView::current_node() const {
  const QModelIndex current = tree_->currentIndex();
  return model_ && current.isValid() ? model_->node(proxy_->mapToSource(current))
                                     : ContextTreeModel::kProgramNode;
}

std::optional<Selection> HierarchyView::selection() const {
  if (!run_) return std::nullopt;
  const int node = current_node();
  return node < 0 ? program_selection(*run_) : context_selection(*run_, node);
}

QVariant HierarchyView::current_key() const {
  return run_ ? QVariant(current_node()) : QVariant();
}

bool HierarchyView::select_key(const QVariant& key) {
  return key.isValid() && select_node(key.toInt());
}

bool HierarchyView::select_node(int node) {
  if (!run_ || node >= static_cast<int>(run_->view.contexts.size())) return false;
  const QModelIndex source = model_->index_of(node);
  QModelIndex index = proxy_->mapFromSource(source);
  if (!index.isValid()) {  // hidden by the search or the threshold
    filter_bar()->clear();
    proxy_->set_search({});
    proxy_->set_minimum(0);
    index = proxy_->mapFromSource(source);
  }
  for (QModelIndex up = index.parent(); up.isValid(); up = up.parent()) tree_->expand(up);
  tree_->setCurrentIndex(index);
  tree_->scrollTo(index, QAbstractItemView::PositionAtCenter);
  return index.isValid();
}

bool HierarchyView::show_contexts_of(uint64_t address, bool object) {
  if (!model_) return false;
  const std::vector<int>& contexts = model_->contexts_of(address, object);
  if (contexts.empty()) return false;
  // Again on the same procedure: its next context.
  const auto at = std::find(contexts.begin(), contexts.end(), current_node());
  const int node = at == contexts.end() || at + 1 == contexts.end() ? contexts.front() : *(at + 1);
  return select_node(node);
}

bool HierarchyView::next_context() {
  const int node = current_node();
  if (!run_ || node < 0) return false;
  const analysis::ContextRow& c = run_->view.contexts[size_t(node)];
  return show_contexts_of(c.address, c.kind != capture::kProcedure);
}

void HierarchyView::expand_heaviest_path() {
  if (!model_) return;
  QModelIndex at = tree_->currentIndex().isValid() ? tree_->currentIndex().siblingAtColumn(0)
                                                   : proxy_->index(0, 0);
  for (int depth = 0; at.isValid() && depth < kMaxPathDepth; ++depth) {
    const QModelIndex next = proxy_->mapFromSource(model_->heaviest_child(proxy_->mapToSource(at)));
    if (!next.isValid()) break;
    tree_->expand(at);
    at = next;
  }
  tree_->setCurrentIndex(at);
  tree_->scrollTo(at);
}

void HierarchyView::filter_minimum(double seconds) {
  refilter([&] { proxy_->set_minimum(seconds); });
}

void HierarchyView::refilter(const std::function<void()>& change) {
  // Refiltering under thousands of expanded rows makes the view relayout once per parent
  // (seconds for a tree of 100,000): close them first.
  const int current = current_node();
  tree_->collapseAll();
  change();
  const QModelIndex index = proxy_->mapFromSource(model_->index_of(current));
  if (!index.isValid()) return;
  for (QModelIndex up = index.parent(); up.isValid(); up = up.parent()) tree_->expand(up);
  tree_->setCurrentIndex(index);
  tree_->scrollTo(index);
}

void HierarchyView::search(const QString& text) {
  if (text == proxy_->search()) return;
  refilter([&] { proxy_->set_search(text); });
  if (!run_ || text.isEmpty()) return;
  // Open the way to the heaviest matches, and select the heaviest.
  const analysis::ProfileView& view = run_->view;
  const auto& contexts = view.contexts;
  // Each name matched once, not once per context that bears it.
  std::vector<bool> matching(view.names.size());
  for (size_t n = 0; n < view.names.size(); ++n)
    matching[n] = QString::fromStdString(view.names[n]).contains(text, Qt::CaseInsensitive);
  std::vector<int> matches;
  for (size_t i = 0; i < contexts.size(); ++i) {
    if (matching[contexts[i].name_index]) matches.push_back(int(i));
  }
  const size_t shown = std::min(matches.size(), kExpandedMatches);
  std::partial_sort(matches.begin(), matches.begin() + long(shown), matches.end(),
                    [&](int a, int b) {
                      return contexts[size_t(a)].normalized_s > contexts[size_t(b)].normalized_s;
                    });
  for (size_t i = 0; i < shown; ++i) {
    const QModelIndex index = proxy_->mapFromSource(model_->index_of(matches[i]));
    for (QModelIndex up = index.parent(); up.isValid(); up = up.parent()) tree_->expand(up);
  }
  if (shown > 0) {
    const QModelIndex first = proxy_->mapFromSource(model_->index_of(matches[0]));
    tree_->setCurrentIndex(first);
    tree_->scrollTo(first);
  }
}

void HierarchyView::save_state(QSettings& settings) const {
  settings.setValue(QStringLiteral("header"), run_ ? tree_->header()->saveState() : saved_header_);
}

void HierarchyView::restore_state(const QSettings& settings) {
  saved_header_ = settings.value(QStringLiteral("header")).toByteArray();
}

QWidget* HierarchyView::main_widget() const {
  return tree_;
}

}  // namespace quartz::viewer
