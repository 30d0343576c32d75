// What the window keeps in its settings: its geometry, the docks, the current view, each
// view's columns and splitters, and the files opened recently.
#include <QCloseEvent>
#include <QSplitter>
#include <QTabWidget>
#include <algorithm>

#include "viewer/loading/command_line.h"
#include "viewer/main_window.h"
#include "viewer/widgets/detail_panel.h"
#include "viewer/widgets/profile_tab.h"
#include "viewer/widgets/recent_files_menu.h"

namespace quartz::viewer {

QStringList MainWindow::recent_files() const {
  return recent_menu_->files();
}

void MainWindow::add_recent(const QString& path) {
  recent_menu_->add(path);
  if (remember_layout_) settings_.setValue(QStringLiteral("recent/files"), recent_files());
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
