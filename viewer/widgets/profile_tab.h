// What the main window needs from each of its views (hierarchy, procedures, locks, threads,
// run): the run to show, what the detail panel should show for the view's selected row,
// a key for back/forward navigation, the table to export, and the layout to remember.
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

class ProfileTab : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;

  virtual void set_run(std::shared_ptr<const RunData> run) = 0;
  virtual std::optional<Selection> selection() const = 0;
  virtual QVariant current_key() const = 0;
  virtual bool select_key(const QVariant& key) = 0;
  virtual const QAbstractItemModel* export_model() const = 0;  // as shown: sorted, filtered
  virtual void focus_search() {}
  virtual QWidget* main_widget() const = 0;  // the table or tree, for keyboard focus
  // Layout in the current group of `settings` (column widths and order, sorting, splitters).
  virtual void save_state(QSettings& settings) const = 0;
  virtual void restore_state(const QSettings& settings) = 0;

 signals:
  void selection_changed();  // selection() has changed
  void show_in_hierarchy(uint64_t address, bool object);
  void open_procedure(uint64_t address);
  void open_lock(uint64_t address);
};

}  // namespace quartz::viewer
