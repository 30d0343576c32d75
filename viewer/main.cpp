// quartz-view [STORE | RUN] [--store STORE] [--screenshot FILE [--view VIEW]]
//             [--export FORMAT --output PATH]
// The command line is checked before any window exists, and for a screenshot or an export
// the run is read then too; in a window it is read behind a dialog that says the step under
// way (a run of millions of contexts takes seconds). Either way bad input gives one line on
// stderr and exit status 2.
#include <QApplication>
#include <QSettings>
#include <QTimer>
#include <cstdlib>
#include <iostream>

#include "format/version.h"
#include "viewer/loading/command_line.h"
#include "viewer/loading/run_data.h"
#include "viewer/loading/run_export.h"
#include "viewer/main_window.h"
#include "viewer/widgets/progress_dialog.h"

using namespace quartz::viewer;

int main(int argc, char** argv) {
  ViewerOptions options;
  OpenRequest request;
  std::shared_ptr<const RunData> run;
  try {
    options = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
    if (options.help) {
      std::cout << usage();
      return 0;
    }
    if (options.version) {
      std::cout << "quartz-view " << quartz::kVersion << "\n";
      return 0;
    }
    request = resolve_request(options, default_store());
    const bool batch = !options.screenshot.empty() || !options.export_format.empty();
    if (request.kind == OpenRequest::kRun && batch) run = load_run(request.which, request.store);
    if (!options.export_format.empty()) {
      export_run(*run, options.export_format, options.output);
      return 0;
    }
  } catch (const std::exception& e) {  // UsageError, LoadError, exports::ExportError
    std::cerr << "quartz-view: " << one_line(e.what()) << "\n";
    return 2;
  }
  // Said before anything else (a missing display, say): the window says it too.
  if (!request.no_store.empty()) std::cerr << "quartz-view: " << request.no_store << "\n";
  const bool screenshot = !options.screenshot.empty();
  if (screenshot) {
    // The offscreen platform warns about what it cannot do (window hints); stderr stays for
    // errors.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
      if (type == QtCriticalMsg || type == QtFatalMsg) std::cerr << message.toStdString() << "\n";
    });
  }
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    if (screenshot) {
      qputenv("QT_QPA_PLATFORM", "offscreen");  // screenshots need no display
    } else if (qEnvironmentVariableIsEmpty("DISPLAY") &&
               qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
      std::cerr << "quartz-view: no display (set DISPLAY, or use --screenshot FILE)\n";
      return 2;
    }
  }

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("quartz"));
  QApplication::setApplicationName(QStringLiteral("quartz-view"));
  QSettings settings;

  if (screenshot) {
    // A fixed size and the default layout: screenshots do not depend on the user's settings.
    MainWindow window(settings, /*remember_layout=*/false);
    window.set_run(run);
    window.resize(1440, 900);
    window.show();
    const MainWindow::View view = MainWindow::view_named(QString::fromStdString(options.view));
    window.show_view(view);
    if (!options.select.empty() &&
        !window.select_named(view, QString::fromStdString(options.select))) {
      std::cerr << "quartz-view: --select: no '" << options.select << "' in the " << options.view
                << " view\n";
      return 2;
    }
    const QString path = QString::fromStdString(options.screenshot);
    if (!window.save_screenshot(path)) {
      std::cerr << "quartz-view: " << options.screenshot << ": cannot write the screenshot\n";
      return 2;
    }
    return 0;
  }

  if (request.kind == OpenRequest::kRun) {
    try {
      run = load_with_progress(
          nullptr,
          QStringLiteral("Opening %1")
              .arg(QString::fromStdString(request.which.empty() ? request.store : request.which)),
          [&request](const LoadProgress& step) {
            return load_run(request.which, request.store, {}, step);
          });
    } catch (const std::exception& e) {  // LoadError
      std::cerr << "quartz-view: " << one_line(e.what()) << "\n";
      return 2;
    }
  }
  MainWindow window(settings);
  if (!request.no_store.empty())
    window.show_no_run_reason(QString::fromStdString(request.no_store));
  if (run) {
    window.set_run(run);
    window.add_recent(QString::fromStdString(run->source));
  }
  window.show();
  if (request.kind == OpenRequest::kPickRun) {
    const QString store = QString::fromStdString(request.store);
    QTimer::singleShot(0, &window, [&window, store] { window.open_path(store); });
  }
  return app.exec();
}
