// The skeleton of the main window's views (hierarchy, procedures, locks, threads, run,
// what-ifs, findings, scaling, comparison): the run shown, the layout (a filter bar, for
// views that have one, above the view's body), and what the main window asks of each view:
// the run to show, what the detail panel should show for the view's selected row, a key for
// back/forward navigation, the table to export, and the layout to remember.
#pragma once

#include <QSettings>
#include <QVariant>
#include <QWidget>
#include <memory>
#include <optional>

#include "viewer/loading/run_data.h"
#include "viewer/widgets/selection.h"

class QAbstractItemModel;

namespace quartz::viewer {

class FilterBar;

class ProfileTab : public QWidget {
  Q_OBJECT

 public:
  virtual void set_run(std::shared_ptr<const RunData> run) = 0;
  virtual std::optional<Selection> selection() const = 0;
  virtual QVariant current_key() const = 0;
  virtual bool select_key(const QVariant& key) = 0;
  virtual const QAbstractItemModel* export_model() const = 0;  // as shown: sorted, filtered
  virtual QWidget* main_widget() const = 0;  // the table or tree, for keyboard focus
  // Layout in the current group of `settings` (column widths and order, sorting, splitters).
  virtual void save_state(QSettings& settings) const = 0;
  virtual void restore_state(const QSettings& settings) = 0;

  FilterBar* filter_bar() const { return filter_; }  // null when the view has none
  void focus_search();                               // its search field, if it has one

 signals:
  void selection_changed();  // selection() has changed
  void show_in_hierarchy(uint64_t address, bool object);
  void open_procedure(uint64_t address);
  void open_lock(uint64_t address);
  void open_thread(uint32_t index);

 protected:
  static constexpr bool kFiltered = true;
  // `filtered`: a filter bar above the body, whose search and threshold go to
  // filter_search() and filter_minimum(); Enter or Escape in it focuses main_widget().
  explicit ProfileTab(QWidget* parent = nullptr, bool filtered = false);

  // Lays the view out: the filter bar, if any, above `body`, which takes the rest.
  void set_body(QWidget* body);
  virtual void filter_search(const QString& /*text*/) {}
  virtual void filter_minimum(double /*seconds*/) {}  // hide what takes less time

  std::shared_ptr<const RunData> run_;  // null: none open

 private:
  FilterBar* filter_ = nullptr;
};

}  // namespace quartz::viewer
