// Exports from the window: the current view's table as CSV, the details' histogram, the
// run in a format of `quartz report --format`, and a screenshot of the window.
#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QMenu>
#include <QStatusBar>

#include "viewer/charts/chart_export.h"
#include "viewer/charts/histogram_chart.h"
#include "viewer/loading/command_line.h"
#include "viewer/main_window.h"
#include "viewer/models/csv_export.h"
#include "viewer/widgets/detail_panel.h"
#include "viewer/widgets/profile_tab.h"

namespace quartz::viewer {

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

}  // namespace quartz::viewer
