// quartz-view's command line and how it finds what to open: options, stores and runs,
// missing files named.
#include <QTemporaryDir>
#include <QTest>

#include "profile/store.h"
#include "viewer/loading/command_line.h"
#include "viewer/loading/run_data.h"

using namespace quartz;
using namespace quartz::viewer;

class LoadingTest : public QObject {
  Q_OBJECT

 private slots:
  void commandLineParses() {
    ViewerOptions o =
        parse_command_line({"--store", "x.db", "3", "--screenshot=out.png", "--view", "locks"});
    QCOMPARE(o.store, "x.db");
    QCOMPARE(o.target, "3");
    QCOMPARE(o.screenshot, "out.png");
    QCOMPARE(o.view, "locks");
    QVERIFY(parse_command_line({"--help"}).help);
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--bogus"}));
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"a", "b"}));
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--view", "flames"}));
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--store"}));
  }

  void requestsResolveStoresAndRuns() {
    QTemporaryDir dir;
    const std::string store = dir.filePath("runs.db").toStdString();
    const std::string absent = dir.filePath("absent.db").toStdString();
    OpenRequest r = resolve_request(parse_command_line({"7"}), store);
    QCOMPARE(r.kind, OpenRequest::kRun);
    QCOMPARE(r.which, "7");
    QCOMPARE(r.store, store);
    r = resolve_request(parse_command_line({}), absent);
    QCOMPARE(r.kind, OpenRequest::kNothing);
    QVERIFY_THROWS_EXCEPTION(
        UsageError, resolve_request(parse_command_line({"--screenshot", "x.png"}), absent));
    { profile::Store created(store); }  // empty
    QVERIFY_THROWS_EXCEPTION(LoadError, resolve_request(parse_command_line({}), store));
    QVERIFY_THROWS_EXCEPTION(LoadError,
                             resolve_request(parse_command_line({"--store", absent}), store));
    try {
      list_runs(store);
      QFAIL("an empty store has no runs to pick");
    } catch (const LoadError& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(store + " holds no runs"));
    }
  }

  void missingFilesAreNamed() {
    try {
      load_run("/nonexistent/run.qcap", "quartz.db");
      QFAIL("loaded a missing file");
    } catch (const LoadError& e) {
      QCOMPARE(QString(e.what()), "/nonexistent/run.qcap: no such file");
    }
  }
};

QTEST_GUILESS_MAIN(LoadingTest)
#include "loading_test.moc"
