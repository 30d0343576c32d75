// The menus: File (open, recent, exports, quit), View (the views, searching, jumps,
// system frames, the details panel) and Help (the keyboard shortcuts).
#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTabWidget>

#include "viewer/main_window.h"
#include "viewer/widgets/hierarchy_view.h"
#include "viewer/widgets/profile_tab.h"
#include "viewer/widgets/recent_files_menu.h"

namespace quartz::viewer {

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

}  // namespace quartz::viewer
