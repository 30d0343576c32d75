// File ▸ Open recent: the captures and stores opened last, newest first, one action each.
#pragma once

#include <QMenu>
#include <QStringList>

namespace quartz::viewer {

class RecentFilesMenu : public QMenu {
  Q_OBJECT

 public:
  static constexpr int kMaxFiles = 8;

  explicit RecentFilesMenu(QWidget* parent = nullptr);

  const QStringList& files() const { return files_; }
  void set_files(const QStringList& files);  // as remembered, newest first
  void add(const QString& path);             // just opened: first, by its absolute path

 signals:
  void open_requested(const QString& path);

 private:
  void rebuild();

  QStringList files_;
};

}  // namespace quartz::viewer
