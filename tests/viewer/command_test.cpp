// The quartz-view command: bad input gives one line on stderr and exit status 2, never a
// crash or a window (missing file, corrupt capture, not a store, no such run, bad options,
// no display, no store); --help and --version; --screenshot of each view, from a capture
// and from a store (the What-ifs view from a store with a stored prediction).
#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "analysis/prediction_json.h"
#include "profile/store.h"
#include "tests/testing/capture_file_fixture.h"
#include "tests/testing/synthetic_run.h"
#include "tests/viewer/pixels.h"
#include "viewer/palette.h"

using namespace quartz;
using namespace quartz::viewer;

namespace {

struct Result {
  int status = -1;
  bool crashed = true;
  QString out, err;
};

// Runs quartz-view without a display: offscreen unless `display` is false (then with none),
// in `directory` (empty: this one), with no $QUARTZ_STORE.
Result run_viewer(const QStringList& args, bool offscreen = true, const QString& directory = {}) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("QUARTZ_STORE");
  env.remove("DISPLAY");
  env.remove("WAYLAND_DISPLAY");
  env.remove("QT_QPA_PLATFORM");
  if (offscreen) env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  if (!directory.isEmpty()) p.setWorkingDirectory(directory);
  p.start(QUARTZ_VIEW, args);
  Result r;
  if (!p.waitForFinished(60000)) {
    p.kill();
    p.waitForFinished();
    return r;
  }
  r.status = p.exitCode();
  r.crashed = p.exitStatus() != QProcess::NormalExit;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

void write_file(const QString& path, const std::vector<unsigned char>& bytes) {
  std::ofstream(path.toStdString(), std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

using test::count_color;

}  // namespace

class CommandTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    profile::Run run = test::small_run();
    const std::vector<unsigned char> bytes = profile::test_support::CaptureFile::of(run).bytes();
    capture_ = dir_.filePath("run.qcap");
    write_file(capture_, bytes);
    corrupt_ = dir_.filePath("corrupt.qcap");
    write_file(corrupt_,
               std::vector<unsigned char>(bytes.begin(), bytes.begin() + long(bytes.size() / 2)));
    store_ = dir_.filePath("runs.db");
    profile::Store(store_.toStdString()).add_run(bytes, run, capture_.toStdString(), "");
    predicted_ = dir_.filePath("predicted.db");
    profile::Store predicted(predicted_.toStdString());
    predicted.add_prediction(predicted.add_run(bytes, run, capture_.toStdString(), ""),
                             "--group 0,1|2 --cores 1",
                             analysis::predictions_json(test::small_predictions()));
    empty_store_ = dir_.filePath("empty.db");
    profile::Store created(empty_store_.toStdString());
    text_ = dir_.filePath("notes.txt");
    write_file(text_, {'h', 'i', '\n'});
    foreign_ = dir_.filePath("other.db");
    QProcess sqlite;
    sqlite.start("sqlite3", {foreign_, "CREATE TABLE t(x);"});
    QVERIFY(sqlite.waitForFinished());
  }

  void badInputGivesOneLineAndStatus2_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");  // the whole line, or its start when it ends with "…"
    QTest::addColumn<bool>("offscreen");
    QTest::newRow("missing file") << QStringList{"/nonexistent/run.qcap"}
                                  << "/nonexistent/run.qcap: no such file" << true;
    QTest::newRow("corrupt capture") << QStringList{corrupt_} << corrupt_ + ": offset …" << true;
    QTest::newRow("neither capture nor store")
        << QStringList{text_} << "'" + text_ + "' is neither a run number nor a capture file"
        << true;
    QTest::newRow("not a store (--store)")
        << QStringList{"--store", text_, "1"} << text_ + ": not a Quartz store" << true;
    QTest::newRow("another database")
        << QStringList{foreign_} << foreign_ + ": not a Quartz store" << true;
    QTest::newRow("empty store") << QStringList{empty_store_} << empty_store_ + " holds no runs"
                                 << true;
    QTest::newRow("missing store") << QStringList{"--store", dir_.filePath("absent.db"), "1"}
                                   << "no store at " + dir_.filePath("absent.db") + " …" << true;
    QTest::newRow("no such run") << QStringList{"--store", store_, "9"} << store_ + ": no run 9"
                                 << true;
    QTest::newRow("unknown option")
        << QStringList{"--frobnicate"} << "unknown option '--frobnicate' (see --help)" << true;
    QTest::newRow("two runs") << QStringList{"1", "2"} << "more than one run given ('1', '2')"
                              << true;
    QTest::newRow("unknown view")
        << QStringList{capture_, "--screenshot", "x.png", "--view", "flames"}
        << "--view: 'flames' is not one of hierarchy, procedures, locks, threads, run, what-ifs, "
           "findings, scaling, comparison"
        << true;
    QTest::newRow("unwritable screenshot")
        << QStringList{capture_, "--screenshot", "/nonexistent/dir/x.png"}
        << "/nonexistent/dir/x.png: cannot write the screenshot" << true;
    QTest::newRow("nothing to select")
        << QStringList{capture_, "--screenshot", dir_.filePath("x.png"), "--select", "nope"}
        << "--select: no 'nope' in the hierarchy view" << true;
    QTest::newRow("unknown export")
        << QStringList{capture_, "--export", "svg", "--output", "x.svg"}
        << "--export: 'svg' is not one of pprof, collapsed, chrome-trace, csv" << true;
    QTest::newRow("export without output")
        << QStringList{capture_, "--export", "pprof"} << "--export needs --output PATH" << true;
    QTest::newRow("output without export")
        << QStringList{capture_, "--output", "x"} << "--output goes with --export" << true;
    QTest::newRow("unwritable export")
        << QStringList{capture_, "--export", "collapsed", "--output", "/nonexistent/dir/x"}
        << "/nonexistent/dir/x: cannot write: No such file or directory" << true;
    QTest::newRow("no display") << QStringList{capture_}
                                << "no display (set DISPLAY, or use --screenshot FILE)" << false;
  }

  void badInputGivesOneLineAndStatus2() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QFETCH(bool, offscreen);
    const Result r = run_viewer(args, offscreen);
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QCOMPARE(r.status, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    const QString line = r.err.trimmed();
    if (message.endsWith("…")) {
      QVERIFY2(line.startsWith("quartz-view: " + message.chopped(1)), qPrintable(line));
    } else {
      QCOMPARE(line, "quartz-view: " + message);
    }
  }

  void helpPrintsUsage() {
    const Result r = run_viewer({"--help"});
    QCOMPARE(r.status, 0);
    QVERIFY(r.out.startsWith("usage: quartz-view [STORE | RUN]"));
    for (const char* option : {"--export FORMAT", "--output PATH", "--version"}) {
      QVERIFY2(r.out.contains(option), option);
    }
    QVERIFY(r.err.isEmpty());
  }

  void versionIsTheProjects() {
    const Result r = run_viewer({"--version"});
    QCOMPARE(r.status, 0);
    QCOMPARE(r.out, "quartz-view " QUARTZ_PROJECT_VERSION "\n");  // project(VERSION) in CMake
    QVERIFY(r.err.isEmpty());
  }

  // With no operand and no store ($QUARTZ_STORE unset, no ./quartz.db) the viewer says so
  // first; here, with no display either, it then stops.
  void noStoreIsSaid() {
    QTemporaryDir empty;
    const Result r = run_viewer({}, false, empty.path());
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QCOMPARE(r.status, 2);
    QCOMPARE(r.err,
             "quartz-view: no store at quartz.db (profile a program with 'quartz run -- PROGRAM', "
             "or open a capture or store)\n"
             "quartz-view: no display (set DISPLAY, or use --screenshot FILE)\n");
    const Result batch = run_viewer({"--screenshot", "x.png"}, true, empty.path());
    QCOMPARE(batch.status, 2);
    QCOMPARE(batch.err,
             "quartz-view: no run given, and no store at quartz.db (profile a program with "
             "'quartz run -- PROGRAM', or open a capture or store)\n");
    QVERIFY(!QFile::exists(QDir(empty.path()).filePath("x.png")));
  }

  void screenshotOfEachView_data() {
    QTest::addColumn<QStringList>("source");
    QTest::addColumn<QString>("view");
    QTest::addColumn<QColor>("drawn");  // a colour the view's charts must show
    for (const char* view : {"hierarchy", "procedures", "locks", "threads", "run"}) {
      const QColor color = QString(view) == "locks" ? palette::kQueue
                           : QString(view) == "procedures"
                               ? palette::kBehalf  // main: all on its behalf
                               : palette::kSelf;
      QTest::addRow("capture %s", view) << QStringList{capture_} << view << color;
    }
    QTest::newRow("store, latest run")
        << QStringList{store_} << "threads" << QColor(palette::kSelf);
    QTest::newRow("store, run 1") << QStringList{"--store", store_, "1"} << "run"
                                  << QColor(palette::kSelf);
    QTest::newRow("store, what-ifs")
        << QStringList{predicted_} << "what-ifs" << QColor(palette::kRecorded);
  }

  void screenshotOfEachView() {
    QFETCH(QStringList, source);
    QFETCH(QString, view);
    QFETCH(QColor, drawn);
    const QString png = dir_.filePath(view + ".png");
    QFile::remove(png);
    const Result r = run_viewer(source + QStringList{"--screenshot", png, "--view", view}, false);
    QVERIFY2(r.status == 0 && !r.crashed, qPrintable(r.err));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1440, 900));
    QVERIFY(count_color(image, drawn) > 500);
    QVERIFY(count_color(image, palette::kBusy) > 100);  // the state chart
  }

 private:
  QTemporaryDir dir_;
  QString capture_, corrupt_, store_, predicted_, empty_store_, text_, foreign_;
};

QTEST_GUILESS_MAIN(CommandTest)
#include "command_test.moc"
