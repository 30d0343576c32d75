#include "viewer/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>

#include "profile/store.h"
#include "viewer/charts/chart_export.h"
#include "viewer/charts/histogram_chart.h"
#include "viewer/loading/command_line.h"
#include "viewer/models/csv_export.h"
#include "viewer/models/format.h"
#include "viewer/widgets/comparison_view.h"
#include "viewer/widgets/detail_panel.h"
#include "viewer/widgets/findings_view.h"
#include "viewer/widgets/hierarchy_view.h"
#include "viewer/widgets/lock_view.h"
#include "viewer/widgets/procedure_view.h"
#include "viewer/widgets/progress_dialog.h"
#include "viewer/widgets/recent_files_menu.h"
#include "viewer/widgets/run_picker.h"
#include "viewer/widgets/run_view.h"
#include "viewer/widgets/scaling_view.h"
#include "viewer/widgets/thread_view.h"
#include "viewer/widgets/what_if_view.h"

namespace quartz::viewer {

namespace {

const char* const kTabTitles[] = {"&Hierarchy", "&Procedures", "&Locks",   "&Threads",   "&Run",
                                  "&What-ifs",  "Fi&ndings",   "&Scaling", "&Comparison"};

}  // namespace

MainWindow::MainWindow(QSettings& settings, bool remember_layout, QWidget* parent)
    : QMainWindow(parent),
      settings_(settings),
      remember_layout_(remember_layout),
      tabs_(new QTabWidget(this)),
      hierarchy_(new HierarchyView),
      procedures_(new ProcedureView),
      locks_(new LockView),
      threads_(new ThreadView),
      run_view_(new RunView),
      what_ifs_(new WhatIfView),
      findings_(new FindingsView),
      scaling_(new ScalingView),
      comparison_(new ComparisonView),
      details_(new DetailPanel),
      dock_(new QDockWidget(tr("Details"), this)),
      run_summary_(new QLabel(this)) {
  views_ = {hierarchy_, procedures_, locks_,   threads_,   run_view_,
            what_ifs_,  findings_,   scaling_, comparison_};
  for (size_t i = 0; i < views_.size(); ++i) {
    tabs_->addTab(views_[i], tr(kTabTitles[i]));
    connect(views_[i], &ProfileTab::selection_changed, this, [this, i] {
      if (tabs_->currentIndex() == static_cast<int>(i)) update_details();
    });
    connect(views_[i], &ProfileTab::show_in_hierarchy, this, &MainWindow::open_in_hierarchy);
    connect(views_[i], &ProfileTab::open_procedure, this, &MainWindow::open_procedure);
    connect(views_[i], &ProfileTab::open_lock, this, &MainWindow::open_lock);
    connect(views_[i], &ProfileTab::open_thread, this, &MainWindow::open_thread);
  }
  tabs_->setDocumentMode(true);
  connect(tabs_, &QTabWidget::currentChanged, this, &MainWindow::update_details);
  setCentralWidget(tabs_);

  dock_->setObjectName(QStringLiteral("details"));  // saveState() needs it
  dock_->setWidget(details_);
  dock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                     QDockWidget::DockWidgetClosable);
  addDockWidget(Qt::RightDockWidgetArea, dock_);
  resizeDocks({dock_}, {480}, Qt::Horizontal);
  statusBar()->addPermanentWidget(run_summary_);

  build_menus();
  resize(1440, 900);
  if (remember_layout_) restore_layout();
  set_run(nullptr);
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(tr("&Open capture or store…"), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open a capture or a store"), QString(),
                                     tr("Quartz captures and stores (*.qcap *.db);;All files (*)"));
    if (!path.isEmpty()) open_path(path);
  });
  open->setShortcut(QKeySequence::Open);
  recent_menu_ = new RecentFilesMenu(file);
  file->addMenu(recent_menu_);
  connect(recent_menu_, &RecentFilesMenu::open_requested, this, &MainWindow::open_path);
  file->addSeparator();
  // The run as `quartz report --format F` writes it, for other tools.
  export_menu_ = file->addMenu(tr("&Export"));
  export_menu_->setToolTipsVisible(true);
  for (const ExportFormat& format : kExportFormats) {
    QAction* a = export_menu_->addAction(tr(format.title), this,
                                         [this, &format] { export_with_dialog(format); });
    a->setData(QString::fromLatin1(format.name));
  }
  QAction* csv = file->addAction(tr("Export &table as CSV…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export table"), QStringLiteral("table.csv"), tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !export_table(path, &error)) report_error(error);
  });
  csv->setShortcut(QKeySequence(QStringLiteral("Ctrl+S")));
  QAction* chart = file->addAction(tr("Export &histogram as PNG or SVG…"), this, [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export histogram"), QStringLiteral("histogram.png"),
                                     tr("PNG image (*.png);;SVG image (*.svg)"));
    QString error;
    if (!path.isEmpty() && !export_histogram(path, &error)) report_error(error);
  });
  chart->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+S")));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < kViewCount; ++i) {
    QAction* a =
        view->addAction(tabs_->tabText(i).remove('&'), this, [this, i] { show_view(View(i)); });
    a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
  }
  view->addSeparator();
  QAction* find =
      view->addAction(tr("&Search names"), this, [this] { current_tab()->focus_search(); });
  find->setShortcut(QKeySequence::Find);
  QAction* hot = view->addAction(tr("&Expand the heaviest path"), this, [this] {
    show_view(kHierarchy);
    hierarchy_->expand_heaviest_path();
  });
  hot->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
  QAction* next = view->addAction(tr("&Next context of this procedure"), this, [this] {
    show_view(kHierarchy);
    hierarchy_->next_context();
  });
  next->setShortcut(QKeySequence(Qt::Key_F3));
  QAction* refresh = view->addAction(tr("Re&load the run"), this, [this] {
    if (!run_ || !run_->id)
      statusBar()->showMessage(tr("Only a run of a store can be reloaded"), 5000);
    else
      this->reload();
  });
  refresh->setShortcut(QKeySequence(Qt::Key_F5));
  QAction* back = view->addAction(tr("&Back"), this, &MainWindow::go_back);
  back->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
  QAction* forward = view->addAction(tr("&Forward"), this, &MainWindow::go_forward);
  forward->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
  QAction* system = view->addAction(tr("Show s&ystem frames (std::, the C library)"));
  system->setCheckable(true);
  system->setToolTip(
      tr("As 'quartz report --all-frames'; otherwise their time is the time of "
         "the program's procedure that called them"));
  connect(system, &QAction::toggled, this, [this, system](bool shown) {
    QString error;
    if (show_system_frames(shown, &error)) return;
    const QSignalBlocker quiet(system);
    system->setChecked(!shown);
    report_error(error);
  });
  view->addSeparator();
  QAction* panel = dock_->toggleViewAction();
  panel->setShortcut(QKeySequence(Qt::Key_F9));
  view->addAction(panel);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard shortcuts"), this, [this] {
    QMessageBox::information(
        this, tr("Keyboard shortcuts"),
        tr("Ctrl+1…9\tHierarchy, Procedures, Locks, Threads, Run, What-ifs, Findings, "
           "Scaling, Comparison\n"
           "Arrows\tmove; Right/Left expand or collapse a context\n"
           "Enter\topen the row in another view (procedure ↔ its contexts, lock, caller, callee)\n"
           "Alt+Left / Alt+Right\tback / forward after such jumps\n"
           "Ctrl+E\texpand the heaviest path below the selected context\n"
           "F3\tnext calling context of the same procedure\n"
           "Ctrl+F\tsearch names; Enter or Escape returns to the table\n"
           "Ctrl+C\tin What-ifs: copy the selected grouping's --placement option\n"
           "F5\treload the run (with predictions stored since)\n"
           "Ctrl+S\texport the table as CSV\n"
           "Ctrl+Shift+S\texport the parallelism histogram (PNG or SVG)\n"
           "F9\tshow or hide the details panel\n"
           "Ctrl+O\topen a capture or store; Ctrl+Q quit"));
  });
  keys->setShortcut(QKeySequence::HelpContents);
}

void MainWindow::set_run(std::shared_ptr<const RunData> run) {
  run_ = std::move(run);
  history_.clear();
  details_->set_processors(run_ ? run_->view.processors : 1);
  for (ProfileTab* view : views_) view->set_run(run_);
  if (run_) {
    const analysis::ProfileView& v = run_->view;
    const QString label = QString::fromStdString(run_->label);
    setWindowTitle(tr("%1 — quartz-view").arg(label));
    run_summary_->setText(tr("%1 · elapsed %2 on %3 processors · %4 samples every %5")
                              .arg(label, format_seconds(v.elapsed_s))
                              .arg(v.processors)
                              .arg(format_count(v.quality.samples))
                              .arg(format_seconds(v.quality.period_s)));
    if (!v.quality.final && v.quality.counts_elapsed_s) {
      statusBar()->showMessage(
          tr("This run did not end normally: its times reach its end, its counts of calls and "
             "acquisitions to %1")
              .arg(format_seconds(*v.quality.counts_elapsed_s)));
    } else if (!v.quality.final) {
      statusBar()->showMessage(tr("This run did not end normally: its last checkpoint"));
    }
  } else {
    setWindowTitle(tr("quartz-view"));
    run_summary_->setText(tr("No run open: File ▸ Open (Ctrl+O)"));
  }
  update_export_actions();
  update_details();
  current_tab()->main_widget()->setFocus();
}

void MainWindow::show_no_run_reason(const QString& reason) {
  if (!run_) run_summary_->setText(tr("No run open: %1. File ▸ Open (Ctrl+O)").arg(reason));
}

void MainWindow::update_export_actions() {
  for (QAction* a : export_menu_->actions()) {
    const ExportFormat* format = export_format_named(a->data().toString().toStdString());
    const bool possible = run_ && can_export(*run_, *format);
    a->setEnabled(possible);
    a->setToolTip(run_ && !possible ? tr("This run has no trace: record it with 'quartz run "
                                         "--trace'")
                                    : QString());
  }
  export_menu_->setEnabled(run_ != nullptr);
}

bool MainWindow::open_run(const QString& which, const QString& store) {
  QApplication::setOverrideCursor(Qt::WaitCursor);
  try {
    const std::string run = which.toStdString(), from = store.toStdString();
    const analysis::ViewOptions options = view_options_;
    set_run(load_with_progress(this, tr("Opening %1").arg(which),
                               [run, from, options](const LoadProgress& step) {
                                 return load_run(run, from, options, step);
                               }));
    QApplication::restoreOverrideCursor();
  } catch (const LoadError& e) {
    QApplication::restoreOverrideCursor();
    report_error(QString::fromStdString(e.what()));
    return false;
  }
  add_recent(run_->id ? store : which);
  return true;
}

bool MainWindow::reload() {
  if (!run_ || !run_->id) return false;
  const View view = current_view();
  const QVariant key = current_tab()->current_key();
  if (!open_run(QString::number(*run_->id), QString::fromStdString(run_->source))) return false;
  show_view(view);
  current_tab()->select_key(key);
  return true;
}

bool MainWindow::open_path(const QString& path) {
  if (!profile::Store::looks_like_store(path.toStdString())) {
    return open_run(path, QString::fromStdString(default_store()));
  }
  std::vector<profile::RunSummary> runs;
  try {
    runs = list_runs(path.toStdString());
  } catch (const LoadError& e) {
    report_error(QString::fromStdString(e.what()));
    return false;
  }
  RunPicker picker(path, std::move(runs), this);
  if (picker.exec() != QDialog::Accepted || !picker.chosen()) return false;
  return open_run(QString::number(*picker.chosen()), path);
}

void MainWindow::report_error(const QString& message) {
  last_error_ = message;
  statusBar()->showMessage(message, 10000);
  if (!quiet_errors_) QMessageBox::warning(this, tr("quartz-view"), message);
}

bool MainWindow::show_system_frames(bool shown, QString* error) {
  analysis::ViewOptions options = view_options_;
  options.all_frames = shown;
  if (run_) {
    const View view = current_view();
    const std::shared_ptr<const RunData> run = run_;
    try {
      set_run(load_with_progress(
          this, tr("Analysing again"),
          [run, options](const LoadProgress& step) { return reanalyzed(*run, options, step); }));
    } catch (const LoadError& e) {  // the run is read again: its file may have gone
      *error = QString::fromStdString(e.what());
      return false;
    }
    show_view(view);
  }
  view_options_ = options;
  return true;
}

QStringList MainWindow::recent_files() const {
  return recent_menu_->files();
}

void MainWindow::add_recent(const QString& path) {
  recent_menu_->add(path);
  if (remember_layout_) settings_.setValue(QStringLiteral("recent/files"), recent_files());
}

void MainWindow::show_view(View view) {
  tabs_->setCurrentIndex(view);
  views_[size_t(view)]->main_widget()->setFocus(Qt::ShortcutFocusReason);
}

MainWindow::View MainWindow::current_view() const {
  return View(tabs_->currentIndex());
}

MainWindow::View MainWindow::view_named(const QString& name) {
  for (int i = 0; i < kViewCount; ++i) {
    if (name == QLatin1String(kViewNames[i])) return View(i);
  }
  return kHierarchy;
}

bool MainWindow::select_named(View view, const QString& name) {
  if (!run_) return false;
  const analysis::ProfileView& v = run_->view;
  const std::string wanted = name.toStdString();
  switch (view) {
    case kHierarchy: {
      int best = -1;
      for (size_t i = 0; i < v.contexts.size(); ++i) {
        if (v.name_of(v.contexts[i]) == wanted &&
            (best < 0 || v.contexts[i].normalized_s > v.contexts[size_t(best)].normalized_s)) {
          best = int(i);
        }
      }
      return best >= 0 && hierarchy_->select_node(best);
    }
    case kProcedures:
      for (const analysis::ProcedureRow& p : v.procedures) {
        if (p.name == wanted) return procedures_->select_procedure(p.address);
      }
      return false;
    case kLocks:
      for (const analysis::LockRow& l : v.locks) {
        if (l.name == wanted) return locks_->select_lock(l.address);
      }
      return false;
    case kThreads:
      for (const analysis::ThreadRow& t : v.threads) {
        if (t.name == wanted) return threads_->select_key(t.index);
      }
      return false;
    case kWhatIfs:
      return what_ifs_->select_on_path(name);
    case kFindings:
      return findings_->select_subject(name);
    case kScaling:
      return scaling_->select_region(name);
    case kComparison: {
      bool number = false;
      const qlonglong id = name.toLongLong(&number);
      return number && comparison_->compare_with(id);
    }
    default:
      return false;
  }
}

ProfileTab* MainWindow::current_tab() const {
  return views_[size_t(tabs_->currentIndex())];
}

void MainWindow::update_details() {
  const std::optional<Selection> selection = current_tab()->selection();
  if (selection) {
    details_->show_selection(*selection);
  } else {
    details_->clear();
  }
}

Place MainWindow::here() const {
  return {tabs_->currentIndex(), current_tab()->current_key()};
}

void MainWindow::remember_place() {
  history_.jump_from(here());
}

void MainWindow::go_to(const Place& place) {
  tabs_->setCurrentIndex(place.view);
  views_[size_t(place.view)]->select_key(place.key);
  views_[size_t(place.view)]->main_widget()->setFocus();
}

void MainWindow::go_back() {
  if (const std::optional<Place> place = history_.back(here())) go_to(*place);
}

void MainWindow::go_forward() {
  if (const std::optional<Place> place = history_.forward(here())) go_to(*place);
}

void MainWindow::open_in_hierarchy(uint64_t address, bool object) {
  remember_place();
  show_view(kHierarchy);
  const bool found = address == 0 && !object ? hierarchy_->select_node(-1)
                                             : hierarchy_->show_contexts_of(address, object);
  if (!found) statusBar()->showMessage(tr("No calling context recorded for it"), 5000);
}

void MainWindow::open_procedure(uint64_t address) {
  remember_place();
  show_view(kProcedures);
  procedures_->select_procedure(address);
}

void MainWindow::open_lock(uint64_t address) {
  remember_place();
  show_view(kLocks);
  locks_->select_lock(address);
}

void MainWindow::open_thread(uint32_t index) {
  remember_place();
  show_view(kThreads);
  threads_->select_key(index);
}

bool MainWindow::export_table(const QString& path, QString* error) const {
  const QAbstractItemModel* model = current_tab()->export_model();
  return model && write_csv_file(*model, path, error);
}

void MainWindow::export_with_dialog(const ExportFormat& format) {
  const bool directory = *format.file_name == '\0';
  const QString path =
      directory
          ? QFileDialog::getExistingDirectory(this, tr("Export every table as CSV into"))
          : QFileDialog::getSaveFileName(this, tr("Export the run"),
                                         QString::fromLatin1(format.file_name), tr(format.filter));
  if (path.isEmpty()) return;
  QString error;
  if (export_run_as(QString::fromLatin1(format.name), path, &error)) {
    statusBar()->showMessage(tr("Exported to %1").arg(path), 5000);
  } else {
    report_error(error);
  }
}

bool MainWindow::export_run_as(const QString& format, const QString& path, QString* error) const {
  if (!run_) {
    *error = tr("No run open");
    return false;
  }
  QApplication::setOverrideCursor(Qt::WaitCursor);
  try {
    export_run(*run_, format.toStdString(), path.toStdString());
  } catch (const std::exception& e) {  // exports::ExportError, or a run that cannot be read
    QApplication::restoreOverrideCursor();
    *error = QString::fromStdString(one_line(e.what()));
    return false;
  }
  QApplication::restoreOverrideCursor();
  return true;
}

bool MainWindow::export_histogram(const QString& path, QString* error) {
  return export_chart(*details_->histogram(), path, error);
}

bool MainWindow::save_screenshot(const QString& path) {
  // Let pending layouts and chart updates settle, then paint the whole window.
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  return grab().save(path, "PNG");
}

void MainWindow::restore_layout() {
  recent_menu_->set_files(settings_.value(QStringLiteral("recent/files")).toStringList());
  restoreGeometry(settings_.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings_.value(QStringLiteral("window/state")).toByteArray());
  details_->splitter()->restoreState(
      settings_.value(QStringLiteral("details/splitter")).toByteArray());
  for (int i = 0; i < kViewCount; ++i) {
    settings_.beginGroup(QLatin1String(kViewNames[i]));
    views_[size_t(i)]->restore_state(settings_);
    settings_.endGroup();
  }
  tabs_->setCurrentIndex(
      std::clamp(settings_.value(QStringLiteral("window/view"), 0).toInt(), 0, kViewCount - 1));
}

void MainWindow::save_layout() {
  if (!remember_layout_) return;
  settings_.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings_.setValue(QStringLiteral("window/state"), saveState());
  settings_.setValue(QStringLiteral("window/view"), tabs_->currentIndex());
  settings_.setValue(QStringLiteral("details/splitter"), details_->splitter()->saveState());
  settings_.setValue(QStringLiteral("recent/files"), recent_files());
  for (int i = 0; i < kViewCount; ++i) {
    settings_.beginGroup(QLatin1String(kViewNames[i]));
    views_[size_t(i)]->save_state(settings_);
    settings_.endGroup();
  }
  settings_.sync();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  save_layout();
  QMainWindow::closeEvent(event);
}

}  // namespace quartz::viewer
