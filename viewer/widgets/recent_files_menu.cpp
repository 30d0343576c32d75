#include "viewer/widgets/recent_files_menu.h"

#include <QAction>
#include <QFileInfo>

namespace quartz::viewer {

RecentFilesMenu::RecentFilesMenu(QWidget* parent) : QMenu(tr("Open &recent"), parent) {
  rebuild();
}

void RecentFilesMenu::set_files(const QStringList& files) {
  files_ = files;
  rebuild();
}

void RecentFilesMenu::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files_.removeAll(absolute);
  files_.prepend(absolute);
  while (files_.size() > kMaxFiles) files_.removeLast();
  rebuild();
}

void RecentFilesMenu::rebuild() {
  clear();
  for (int i = 0; i < files_.size(); ++i) {
    const QString path = files_[i];
    QAction* a = addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(path), this,
                           [this, path] { emit open_requested(path); });
    a->setToolTip(path);
  }
  setEnabled(!files_.isEmpty());
}

}  // namespace quartz::viewer
