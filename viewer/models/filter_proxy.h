// Sorting and filtering for every table and the tree: sorts by NumberRole (the analysis
// values, not their text), keeps rows whose name contains a search text (in a tree: also
// their ancestors, which lead to them, and their descendants, which are what one looks for),
// and hides rows below a minimum value (say, under 1% of elapsed time).
#pragma once

#include <QSortFilterProxyModel>

namespace quartz::viewer {

class ProfileFilterProxy : public QSortFilterProxyModel {
 public:
  // `name_column` is searched; `value_column`'s NumberRole is compared with the minimum.
  ProfileFilterProxy(int name_column, int value_column, QObject* parent = nullptr);

  void set_search(const QString& text);
  void set_minimum(double value);  // 0: no minimum
  const QString& search() const { return search_; }

  // Without a filter, the source's answer: the base class would sort every child of each
  // collapsed row the view shows just to learn whether it has one.
  bool hasChildren(const QModelIndex& parent = {}) const override;

 protected:
  bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

 private:
  bool name_matches(const QModelIndex& source_index) const;

  int name_column_, value_column_;
  QString search_;
  double minimum_ = 0;
};

}  // namespace quartz::viewer
