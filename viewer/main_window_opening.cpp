// Opening a run: a capture or a store's run (a store asks which), reading it again
// (reload, system frames shown or not), and saying what went wrong.
#include <QApplication>
#include <QMessageBox>
#include <QStatusBar>

#include "profile/store.h"
#include "viewer/loading/command_line.h"
#include "viewer/main_window.h"
#include "viewer/widgets/profile_tab.h"
#include "viewer/widgets/progress_dialog.h"
#include "viewer/widgets/run_picker.h"

namespace quartz::viewer {

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
  // A server is remembered without its password (libpq finds it again: PGPASSWORD, .pgpass).
  add_recent(run_->id ? QString::fromStdString(profile::Store::display_name(store.toStdString()))
                      : which);
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
  if (!profile::Store::looks_like_store(path.toStdString()) &&
      !profile::Store::is_server_uri(path.toStdString())) {
    return open_run(path, QString::fromStdString(default_store()));
  }
  std::vector<profile::RunSummary> runs;
  try {
    runs = list_runs(path.toStdString());
  } catch (const LoadError& e) {
    report_error(QString::fromStdString(e.what()));
    return false;
  }
  RunPicker picker(QString::fromStdString(profile::Store::display_name(path.toStdString())),
                   std::move(runs), this);
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

}  // namespace quartz::viewer
