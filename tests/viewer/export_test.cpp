// The viewer's exports (File ▸ Export, and `quartz-view --export` without a window) write
// the files `quartz report --format F` writes for the same run, byte for byte: pprof,
// collapsed stacks, the Chrome trace and every CSV table, of a real traced run of the
// pairs sample, from its store and from its capture file. With no operand, the default
// store's latest run. A run without a trace offers no trace export, and asking for one
// fails as `quartz report` does.
#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QProcess>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <map>

#include "profile/store.h"
#include "tests/testing/capture_file_fixture.h"
#include "tests/testing/synthetic_run.h"
#include "viewer/loading/run_data.h"
#include "viewer/main_window.h"

using namespace quartz;
using namespace quartz::viewer;

namespace {

struct Result {
  int status = -1;
  QString err;
};

// Runs a command with no $QUARTZ_STORE unless `store` is given, in `directory` (empty: this
// one).
Result run(const QString& program, const QStringList& args, const QString& store = {},
           const QString& directory = {}) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("QUARTZ_STORE");
  if (!store.isEmpty()) env.insert("QUARTZ_STORE", store);
  p.setProcessEnvironment(env);
  if (!directory.isEmpty()) p.setWorkingDirectory(directory);
  p.start(program, args);
  Result r;
  if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit) {
    p.kill();
    p.waitForFinished();
    r.err = "did not finish";
    return r;
  }
  r.status = p.exitCode();
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

QByteArray contents(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("(cannot read)");
}

// The files of a CSV export's directory, or the one file, with their bytes.
std::map<QString, QByteArray> written(const QString& path) {
  std::map<QString, QByteArray> files;
  if (QFileInfo(path).isDir()) {
    for (const QString& name : QDir(path).entryList(QDir::Files)) {
      files[name] = contents(QDir(path).filePath(name));
    }
  } else {
    files[QString()] = contents(path);
  }
  return files;
}

QStringList action_names(const QMenu& menu) {
  QStringList names;
  for (const QAction* a : menu.actions()) names << a->data().toString();
  return names;
}

QAction* action_named(const QMenu& menu, const QString& name) {
  for (QAction* a : menu.actions()) {
    if (a->data().toString() == name) return a;
  }
  return nullptr;
}

}  // namespace

class ExportTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    store_ = dir_.filePath("runs.db");
    capture_ = dir_.filePath("pairs.qcap");
    const Result r =
        run(QUARTZ_BIN_DIR "/quartz", {"run", "-q", "--trace", "--store", store_, "-o", capture_,
                                       "--", QUARTZ_SAMPLES_DIR "/pairs", "--rounds", "400"});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QVERIFY(QFile::exists(capture_ + ".trace"));
    // A run without a trace: the synthetic one, stored.
    untraced_ = dir_.filePath("untraced.db");
    const profile::Run synthetic = test::small_run();
    profile::Store(untraced_.toStdString())
        .add_run(profile::test_support::CaptureFile::of(synthetic).bytes(), synthetic,
                 "synthetic.qcap", "");
  }

  void exportEqualsReport_data() {
    QTest::addColumn<QStringList>("source");
    QTest::addColumn<QString>("format");
    for (const char* format : {"pprof", "collapsed", "chrome-trace", "csv"}) {
      QTest::addRow("store, %s", format) << QStringList{"--store", store_, "1"} << format;
      QTest::addRow("capture, %s", format) << QStringList{capture_} << format;
    }
  }

  void exportEqualsReport() {
    QFETCH(QStringList, source);
    QFETCH(QString, format);
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(", ", "-");
    const QString reported = dir_.filePath(tag + "-report"),
                  exported = dir_.filePath(tag + "-view");
    Result r = run(QUARTZ_BIN_DIR "/quartz", QStringList{"report"} + source +
                                                 QStringList{"--format", format, "-o", reported});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    r = run(QUARTZ_VIEW, source + QStringList{"--export", format, "--output", exported});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    const auto expected = written(reported);
    QVERIFY(!expected.empty() && expected.begin()->second.size() > 100);
    QVERIFY(written(exported) == expected);
  }

  // With no operand the viewer opens the latest run of $QUARTZ_STORE, else of ./quartz.db:
  // its export is `quartz report`'s of that run, not of the first.
  void noOperandOpensTheDefaultStoresLatestRun() {
    const QString two = dir_.filePath("two.db");
    const profile::Run synthetic = test::small_run();
    profile::Store(two.toStdString())
        .add_run(profile::test_support::CaptureFile::of(synthetic).bytes(), synthetic,
                 "synthetic.qcap", "");
    Result r = run(QUARTZ_BIN_DIR "/quartz", {"import", capture_, "--store", two});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    const QString first = dir_.filePath("two-1.folded"), latest = dir_.filePath("two-2.folded");
    for (const auto& [which, path] : {std::pair{"1", first}, std::pair{"2", latest}}) {
      r = run(QUARTZ_BIN_DIR "/quartz",
              {"report", "--store", two, which, "--format", "collapsed", "-o", path});
      QVERIFY2(r.status == 0, qPrintable(r.err));
    }
    QVERIFY(contents(first) != contents(latest));

    const QString by_variable = dir_.filePath("by-variable.folded");
    r = run(QUARTZ_VIEW, {"--export", "collapsed", "--output", by_variable}, two);
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QCOMPARE(contents(by_variable), contents(latest));

    const QString here = dir_.filePath("here");
    QVERIFY(QDir().mkpath(here));
    QVERIFY(QFile::copy(two, QDir(here).filePath("quartz.db")));
    const QString by_directory = dir_.filePath("by-directory.folded");
    r = run(QUARTZ_VIEW, {"--export", "collapsed", "--output", by_directory}, {}, here);
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QCOMPARE(contents(by_directory), contents(latest));
  }

  // What the menu does once its dialog is answered.
  void menuOffersTheFormatsAndWritesTheReportsFiles() {
    QSettings settings(dir_.filePath("settings.ini"), QSettings::IniFormat);
    MainWindow window(settings, /*remember_layout=*/false);
    window.set_quiet_errors(true);
    QMenu& menu = *window.export_menu();
    QVERIFY(!menu.isEnabled());  // no run open
    window.set_run(load_run("1", store_.toStdString()));
    QVERIFY(menu.isEnabled());
    QCOMPARE(action_names(menu), (QStringList{"pprof", "collapsed", "chrome-trace", "csv"}));
    for (const QAction* a : menu.actions()) QVERIFY2(a->isEnabled(), qPrintable(a->text()));

    const QString reported = dir_.filePath("menu-report.json"),
                  exported = dir_.filePath("menu-view.json");
    const Result r = run(QUARTZ_BIN_DIR "/quartz", {"report", "--store", store_, "1", "--format",
                                                    "chrome-trace", "-o", reported});
    QVERIFY2(r.status == 0, qPrintable(r.err));
    QString error;
    QVERIFY2(window.export_run_as("chrome-trace", exported, &error), qPrintable(error));
    QCOMPARE(contents(exported), contents(reported));
    QVERIFY(!window.export_run_as("pprof", "/nonexistent/dir/p.pb.gz", &error));
    QVERIFY2(error.startsWith("/nonexistent/dir/p.pb.gz: cannot write"), qPrintable(error));
  }

  // With no store found the window opens empty and says why in its status bar.
  void emptyWindowSaysWhy() {
    QSettings settings(dir_.filePath("settings.ini"), QSettings::IniFormat);
    MainWindow window(settings, /*remember_layout=*/false);
    window.show_no_run_reason("no store at quartz.db");
    QStringList texts;
    for (const QLabel* label : window.statusBar()->findChildren<QLabel*>()) texts << label->text();
    QVERIFY2(texts.contains("No run open: no store at quartz.db. File ▸ Open (Ctrl+O)"),
             qPrintable(texts.join(" | ")));
  }

  void runWithoutTraceHasNoTraceExport() {
    QSettings settings(dir_.filePath("settings.ini"), QSettings::IniFormat);
    MainWindow window(settings, /*remember_layout=*/false);
    window.set_run(load_run("1", untraced_.toStdString()));
    const QMenu& menu = *window.export_menu();
    QVERIFY(!action_named(menu, "chrome-trace")->isEnabled());
    QVERIFY(action_named(menu, "pprof")->isEnabled());

    const QString out = dir_.filePath("untraced.json");
    const Result report = run(QUARTZ_BIN_DIR "/quartz", {"report", "--store", untraced_, "1",
                                                         "--format", "chrome-trace", "-o", out});
    QVERIFY(report.status != 0);
    const Result view =
        run(QUARTZ_VIEW, {"--store", untraced_, "1", "--export", "chrome-trace", "--output", out});
    QCOMPARE(view.status, 2);
    // The same reason, from the same code: "quartz: report: R" and "quartz-view: R".
    const QString reason = report.err.trimmed().section(": ", 2);
    QVERIFY2(reason.contains("no trace"), qPrintable(report.err));
    QCOMPARE(view.err.trimmed(), "quartz-view: " + reason);
    QVERIFY(!QFile::exists(out));
  }

 private:
  QTemporaryDir dir_;
  QString store_, capture_, untraced_;
};

QTEST_MAIN(ExportTest)
#include "export_test.moc"
