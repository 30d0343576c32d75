// The window itself: the views in tabs, the details dock beside them, and the run shown,
// summed up in the status bar.
#include "viewer/main_window.h"

#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>

#include "viewer/models/format.h"
#include "viewer/widgets/comparison_view.h"
#include "viewer/widgets/detail_panel.h"
#include "viewer/widgets/findings_view.h"
#include "viewer/widgets/hierarchy_view.h"
#include "viewer/widgets/lock_view.h"
#include "viewer/widgets/procedure_view.h"
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

void MainWindow::show_view(View view) {
  tabs_->setCurrentIndex(view);
  views_[size_t(view)]->main_widget()->setFocus(Qt::ShortcutFocusReason);
}

MainWindow::View MainWindow::current_view() const {
  return View(tabs_->currentIndex());
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

}  // namespace quartz::viewer
