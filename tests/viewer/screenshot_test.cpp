// A screenshot of each view from real runs of the samples, made with the quartz-view
// command as a user would, and checked: the window's size and each view's charts drawn.
// They go to $QUARTZ_VIEW_SCREENSHOT_DIR when set (docs/screenshots is made this way:
// QUARTZ_VIEW_SCREENSHOT_DIR=$PWD/docs/screenshots ctest -R viewer_screenshot_tests),
// else to the build tree.
#include <sched.h>

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "tests/viewer/pixels.h"
#include "viewer/palette.h"

using namespace quartz::viewer;

using test::count_color;

class ScreenshotTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    out_ = QDir(qEnvironmentVariable("QUARTZ_VIEW_SCREENSHOT_DIR", QUARTZ_DEFAULT_SCREENSHOT_DIR))
               .absolutePath();
    QVERIFY(QDir().mkpath(out_));
    store_ = "samples.db";  // relative: the screenshots show "run 1 (samples.db)"
    for (const char* sample : {"serial_init", "lock_contention"}) {  // runs 1 and 2
      QVERIFY(
          quartz({"run", "-q", "--store", store_, "--", QString(QUARTZ_SAMPLES_DIR "/") + sample}));
    }
    // Run 3, traced, with the predictions the user guide asks of it.
    QVERIFY(quartz({"run", "-q", "--trace", "--store", store_, "--", QUARTZ_SAMPLES_DIR "/pairs"}));
    QVERIFY(
        quartz({"predict", "--store", store_, "3", "--group", "0|1,2|3,4", "--cores", "1", "--zero",
                "ping_work", "--speedup", "pong_work=50", "--migrate", "pass_token"}));
    // Run 4: lock_contention with half the critical section, to compare with run 2.
    QVERIFY(quartz({"run", "-q", "--store", store_, "--", QUARTZ_SAMPLES_DIR "/lock_contention",
                    "--hold-us", "50"}));
    // Runs 5 to 10: a series of the imbalance sample on 1 and 2 processors, three runs each
    // (their medians are shown), where two processors are allowed.
    cpu_set_t set;
    CPU_ZERO(&set);
    series_ = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 2;
    if (series_) {
      QVERIFY(quartz({"scale", "--store", store_, "--processors", "1,2", "--repeat", "3", "--",
                      QUARTZ_SAMPLES_DIR "/imbalance", "--threads", "4", "--unit-ms", "30"}));
    }
  }

  void eachView_data() {
    QTest::addColumn<QString>("run");
    QTest::addColumn<QString>("view");
    QTest::addColumn<QString>("select");
    QTest::addColumn<QList<QColor>>("drawn");  // colours its charts must show
    // serial_init's logging routine: all of it with one processor busy (the paper's point).
    QTest::newRow("hierarchy") << "1"
                               << "hierarchy"
                               << "log_message" << QList<QColor>{palette::kSelf, palette::kBusy};
    // Self and on-behalf parts stacked: the lock is taken inside update_shared_state.
    QTest::newRow("procedures") << "2"
                                << "procedures"
                                << "update_shared_state"
                                << QList<QColor>{palette::kSelf, palette::kBehalf,
                                                 palette::kBlocked};
    QTest::newRow("locks") << "2"
                           << "locks"
                           << "work_queue" << QList<QColor>{palette::kQueue, palette::kSelf};
    QTest::newRow("threads") << "2"
                             << "threads"
                             << "" << QList<QColor>{palette::kSelf, palette::kReady};
    QTest::newRow("run") << "1"
                         << "run"
                         << "" << QList<QColor>{palette::kSelf, palette::kBusy};
    // pairs: faster without ping_work, slower on one processor; ping_work on the path.
    QTest::newRow("what-ifs") << "3"
                              << "what-ifs"
                              << "ping_work"
                              << QList<QColor>{palette::kRecorded, palette::kCriticalPath,
                                               palette::kFaster, palette::kSlower};
    // lock_contention's findings, its lock selected: the contention is most of the run on
    // any machine, where the serial part of its private work falls below the findings'
    // threshold when other processes take the processors.
    QTest::newRow("findings") << "2"
                              << "findings"
                              << "work_queue"
                              << QList<QColor>{palette::kSelf, palette::kBusy, palette::kBlocked};
    // imbalance: the speedup below the ideal, do_share losing the most. (Only the first
    // series' colour: how long the others' lines are depends on the runs.)
    QTest::newRow("scaling") << "6"
                             << "scaling"
                             << "do_share" << QList<QColor>{palette::kSelf};
    // Run 4 against run 2: the shorter critical section.
    QTest::newRow("comparison") << "4"
                                << "comparison"
                                << "2" << QList<QColor>{palette::kSelf, palette::kBlocked};
  }

  void eachView() {
    QFETCH(QString, run);
    QFETCH(QString, view);
    QFETCH(QString, select);
    QFETCH(QList<QColor>, drawn);
    if (view == "scaling" && !series_) QSKIP("fewer than 2 processors allowed: no series");
    const QString png = QDir(out_).filePath(view + ".png");
    QStringList args{"--store", store_, run, "--screenshot", png, "--view", view};
    if (!select.isEmpty()) args << "--select" << select;
    QProcess viewer;
    viewer.setWorkingDirectory(dir_.path());
    viewer.start(QUARTZ_VIEW, args);
    QVERIFY(viewer.waitForFinished(60000));
    QVERIFY2(viewer.exitCode() == 0, viewer.readAllStandardError().constData());
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1440, 900));
    for (const QColor& color : drawn)
      QVERIFY2(count_color(image, color) > 300, qPrintable(color.name()));
  }

  // The runs pushed to a PostgreSQL server are opened from there as from the file.
  void aServersRunIsShown() {
    const QString server = qEnvironmentVariable("QUARTZ_TEST_PG_DIR");
    QVERIFY2(!server.isEmpty(), "run by ctest, which starts the tests' server");
    QProcess made;
    made.start(
        QUARTZ_SCRIPTS_DIR "/pg-server.sh",
        {"database", server, "viewer_" + QString::number(QCoreApplication::applicationPid())});
    QVERIFY(made.waitForFinished(60000));
    QVERIFY2(made.exitCode() == 0, made.readAllStandardError().constData());
    const QString uri = QString::fromUtf8(made.readAllStandardOutput()).section('\n', 0, 0);
    QVERIFY(quartz({"push", "--store", store_, "--to", uri}));
    const QString png = dir_.filePath("server-locks.png");
    QProcess viewer;
    viewer.start(QUARTZ_VIEW, {"--store", uri, "2", "--screenshot", png, "--view", "locks",
                               "--select", "work_queue"});
    QVERIFY(viewer.waitForFinished(60000));
    QVERIFY2(viewer.exitCode() == 0, viewer.readAllStandardError().constData());
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1440, 900));
    for (const QColor& color : {palette::kQueue, palette::kSelf})
      QVERIFY2(count_color(image, color) > 300, qPrintable(color.name()));
  }

 private:
  bool quartz(const QStringList& args) {
    QProcess quartz;
    quartz.setWorkingDirectory(dir_.path());
    quartz.start(QUARTZ_BIN_DIR "/quartz", args);
    if (quartz.waitForFinished(120000) && quartz.exitCode() == 0) return true;
    qWarning("%s", quartz.readAllStandardError().constData());
    return false;
  }

  QTemporaryDir dir_;
  QString out_, store_;
  bool series_ = false;
};

QTEST_GUILESS_MAIN(ScreenshotTest)
#include "screenshot_test.moc"
