// quartz-view's window: views of one run (hierarchy, procedures, locks, threads, run,
// what-ifs, findings, scaling, comparison) in tabs, and a dock with the selected row's
// charts. Jumps between views (Enter) can be retraced with Alt+Left/Alt+Right. The layout,
// the current view and recent files are kept in the QSettings given (tests give a
// temporary file). One file per job:
//   main_window.cpp             the tabs, the details dock, the run shown and its summary
//   main_window_menus.cpp       the menus' actions and shortcuts
//   main_window_opening.cpp     opening a capture or a store's run, reloading, re-analysing
//   main_window_navigation.cpp  views by name, selecting by name, jumps back and forward
//   main_window_exports.cpp     the table, the histogram, the run, a screenshot
//   main_window_layout.cpp      the layout and recent files kept in the settings
#pragma once

#include <QMainWindow>
#include <QSettings>
#include <memory>
#include <vector>

#include "viewer/loading/run_data.h"
#include "viewer/loading/run_export.h"
#include "viewer/models/navigation_history.h"

class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace quartz::viewer {

class ComparisonView;
class DetailPanel;
class FindingsView;
class HierarchyView;
class LockView;
class ProcedureView;
class ProfileTab;
class RecentFilesMenu;
class RunView;
class ScalingView;
class ThreadView;
class WhatIfView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum View {
    kHierarchy,
    kProcedures,
    kLocks,
    kThreads,
    kRun,
    kWhatIfs,
    kFindings,
    kScaling,
    kComparison,
    kViewCount
  };

  // `settings` must outlive the window. With `remember_layout` false (screenshots) the
  // window neither reads nor writes it.
  explicit MainWindow(QSettings& settings, bool remember_layout = true, QWidget* parent = nullptr);
  ~MainWindow() override;

  void set_run(std::shared_ptr<const RunData> run);
  const std::shared_ptr<const RunData>& run() const { return run_; }

  // Opens a capture or a run of the default store; a store asks which run. Errors go to a
  // message box (or, with quiet errors, to last_error()). True when a run was opened.
  bool open_path(const QString& path);
  bool open_run(const QString& which, const QString& store);
  // Reads the run again (a store's run: with the predictions stored since), keeping the
  // current view. False when there is nothing to reload or it failed.
  bool reload();
  void set_quiet_errors(bool quiet) { quiet_errors_ = quiet; }
  const QString& last_error() const { return last_error_; }

  void show_view(View view);
  View current_view() const;
  static View view_named(const QString& name);  // "hierarchy", ...; kHierarchy if unknown
  // Selects, in a view, the procedure, object or thread of that name (in the hierarchy,
  // its heaviest calling context; in What-ifs, on the critical path of the newest
  // prediction; in Findings, the first finding about it; in Scaling, the region). In Comparison,
  // `name` is the number of the run of the same store to compare with. False when there is none.
  bool select_named(View view, const QString& name);

  bool save_screenshot(const QString& path);
  bool export_table(const QString& path, QString* error) const;  // the current view's table
  bool export_histogram(const QString& path, QString* error);    // PNG or SVG by suffix
  // The run in a format of `quartz report --format` (File ▸ Export, without its dialog):
  // `path` is a file, or for csv a directory.
  bool export_run_as(const QString& format, const QString& path, QString* error) const;
  QMenu* export_menu() const { return export_menu_; }  // one action per format, data: its name
  // Says, while no run is open, why (no store found) and what to do.
  void show_no_run_reason(const QString& reason);
  QStringList recent_files() const;
  void add_recent(const QString& path);  // a capture or store just opened
  void save_layout();

  HierarchyView* hierarchy() const { return hierarchy_; }
  ProcedureView* procedures() const { return procedures_; }
  LockView* locks() const { return locks_; }
  ThreadView* threads() const { return threads_; }
  WhatIfView* what_ifs() const { return what_ifs_; }
  FindingsView* findings() const { return findings_; }
  ScalingView* scaling() const { return scaling_; }
  ComparisonView* comparison() const { return comparison_; }
  DetailPanel* details() const { return details_; }

 public slots:
  void go_back();
  void go_forward();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void build_menus();
  void restore_layout();
  void report_error(const QString& message);
  // Analyses the run again with system frames shown or not (View ▸ Show system frames);
  // false, saying why in `error`, when the run could not be read again.
  bool show_system_frames(bool shown, QString* error);
  void export_with_dialog(const ExportFormat& format);
  void update_export_actions();
  void update_details();
  Place here() const;  // the current view and its selected row
  void remember_place();
  void go_to(const Place& place);
  void open_in_hierarchy(uint64_t address, bool object);
  void open_procedure(uint64_t address);
  void open_lock(uint64_t address);
  void open_thread(uint32_t index);
  ProfileTab* current_tab() const;

  QSettings& settings_;
  bool remember_layout_;
  bool quiet_errors_ = false;
  QString last_error_;
  std::shared_ptr<const RunData> run_;
  analysis::ViewOptions view_options_;  // View ▸ Show system frames: --all-frames
  QTabWidget* tabs_;
  HierarchyView* hierarchy_;
  ProcedureView* procedures_;
  LockView* locks_;
  ThreadView* threads_;
  RunView* run_view_;
  WhatIfView* what_ifs_;
  FindingsView* findings_;
  ScalingView* scaling_;
  ComparisonView* comparison_;
  std::vector<ProfileTab*> views_;
  DetailPanel* details_;
  QDockWidget* dock_;
  RecentFilesMenu* recent_menu_ = nullptr;
  QMenu* export_menu_ = nullptr;
  QLabel* run_summary_;
  NavigationHistory history_;
};

}  // namespace quartz::viewer
