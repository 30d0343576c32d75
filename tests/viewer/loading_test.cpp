// quartz-view's command line and how it finds what to open: options, stores and runs (with
// no operand, the default store's latest run), missing files named.
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "profile/store.h"
#include "tests/testing/capture_file_fixture.h"
#include "tests/testing/synthetic_run.h"
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
    QVERIFY(parse_command_line({"--version"}).version);
    o = parse_command_line({"1", "--export", "pprof", "--output=p.pb.gz"});
    QCOMPARE(o.export_format, "pprof");
    QCOMPARE(o.output, "p.pb.gz");
    QVERIFY(o.batch());
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--export", "svg", "--output", "x"}));
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--export", "csv"}));
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--output", "x"}));
    QVERIFY_THROWS_EXCEPTION(UsageError, parse_command_line({"--export", "csv", "--output", "d",
                                                             "--screenshot", "x.png"}));
  }

  void requestsResolveStoresAndRuns() {
    QTemporaryDir dir;
    const std::string store = dir.filePath("runs.db").toStdString();
    const std::string absent = dir.filePath("absent.db").toStdString();
    OpenRequest r = resolve_request(parse_command_line({"7"}), store);
    QCOMPARE(r.kind, OpenRequest::kRun);
    QCOMPARE(r.which, "7");
    QCOMPARE(r.store, store);
    // No operand and no store: an empty window that says why, or an error in a batch mode.
    r = resolve_request(parse_command_line({}), absent);
    QCOMPARE(r.kind, OpenRequest::kNothing);
    QCOMPARE(r.no_store, "no store at " + absent +
                             " (profile a program with 'quartz run -- PROGRAM', or open a "
                             "capture or store)");
    QVERIFY_THROWS_EXCEPTION(
        UsageError, resolve_request(parse_command_line({"--screenshot", "x.png"}), absent));
    QVERIFY_THROWS_EXCEPTION(
        UsageError,
        resolve_request(parse_command_line({"--export", "csv", "--output", "d"}), absent));
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
    const profile::Run run = test::small_run();
    profile::Store(store).add_run(profile::test_support::CaptureFile::of(run).bytes(), run,
                                  "run.qcap", "");
    // No operand: the default store's latest run, without asking.
    r = resolve_request(parse_command_line({}), store);
    QCOMPARE(r.kind, OpenRequest::kRun);
    QCOMPARE(r.which, "latest");
    QCOMPARE(r.store, store);
    // A store named: its runs to pick from, or its latest in a batch mode.
    r = resolve_request(parse_command_line({"--store", store}), absent);
    QCOMPARE(r.kind, OpenRequest::kPickRun);
    QCOMPARE(r.store, store);
    r = resolve_request(parse_command_line({store, "--export", "csv", "--output", "d"}), absent);
    QCOMPARE(r.kind, OpenRequest::kRun);
    QCOMPARE(r.which, "latest");
  }

  // System code folds into its caller unless shown (View ▸ Show system frames), as in
  // `quartz report` and `--all-frames`: relax made std:: code, its time is solve's own.
  void systemFramesFoldUnlessShown() {
    QTemporaryDir dir;
    profile::Run run = test::small_run();
    run.symbols[test::kRelax].file = "/usr/include/c++/12/bits/stl_algo.h";
    const std::string store = dir.filePath("runs.db").toStdString();
    profile::Store(store).add_run(profile::test_support::CaptureFile::of(run).bytes(), run,
                                  "run.qcap", "");
    auto names = [](const RunData& data) {
      QStringList out;
      for (const auto& p : data.view.procedures) {
        out << QString::fromStdString(p.name.substr(0, p.name.find('(')));
      }
      return out;
    };
    const std::shared_ptr<const RunData> folded = load_run("1", store);
    QVERIFY(!folded->view.all_frames);
    QVERIFY(!names(*folded).contains("relax"));
    const std::shared_ptr<const RunData> all = reanalyzed(*folded, {.all_frames = true});
    QVERIFY(all->view.all_frames);
    QVERIFY(names(*all).contains("relax"));
    QCOMPARE(names(*all).size(), names(*folded).size() + 1);

    // The view took the run's contexts, so showing them again reads the capture again: a
    // capture file is read from where it was (unsymbolized here: nothing to fold), and one
    // gone since is named.
    const std::string capture = dir.filePath("run.qcap").toStdString();
    {
      const std::vector<unsigned char>& bytes = profile::test_support::CaptureFile::of(run).bytes();
      std::ofstream(capture, std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    }
    const std::shared_ptr<const RunData> from_file = load_run(capture, "");
    QVERIFY(from_file->run.contexts.empty());
    const std::shared_ptr<const RunData> again = reanalyzed(*from_file, {.all_frames = true});
    QVERIFY(again->view.all_frames);
    QCOMPARE(again->view.contexts.size(), from_file->view.contexts.size());
    QVERIFY(!again->view.contexts.empty());
    std::filesystem::remove(capture);
    try {
      reanalyzed(*from_file, {.all_frames = true});
      QFAIL("analysed a capture that is gone");
    } catch (const LoadError& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(capture + ": no such file"));
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
