// The viewer's models without widgets: golden trees and tables from a run whose numbers
// are known (synthetic_run.h), QAbstractItemModelTester on each model and its proxy,
// sorting, filtering, call-graph navigation, CSV export and the command line; the
// What-ifs models from stored predictions whose numbers are known.
#include <QAbstractItemModelTester>
#include <QTemporaryDir>
#include <QTest>

#include "profile/store.h"
#include "tests/viewer/synthetic_run.h"
#include "viewer/loading/command_line.h"
#include "viewer/models/call_graph_model.h"
#include "viewer/models/context_tree_model.h"
#include "viewer/models/csv_export.h"
#include "viewer/models/filter_proxy.h"
#include "viewer/models/format.h"
#include "viewer/models/lock_table_model.h"
#include "viewer/models/procedure_table_model.h"
#include "viewer/models/roles.h"
#include "viewer/models/run_details_model.h"
#include "viewer/models/run_list_model.h"
#include "viewer/models/thread_table_model.h"
#include "viewer/models/what_if_answer_model.h"
#include "viewer/models/what_if_details_model.h"
#include "viewer/models/what_if_list_model.h"
#include "viewer/models/what_if_text.h"

using namespace quartz;
using namespace quartz::viewer;

namespace {

// Every row's display text, columns joined by " | ", children indented by two spaces.
QString print(const QAbstractItemModel& model, const QModelIndex& parent = {}, int depth = 0) {
  QString text;
  for (int row = 0; row < model.rowCount(parent); ++row) {
    QStringList cells;
    for (int column = 0; column < model.columnCount(parent); ++column) {
      cells << model.index(row, column, parent).data().toString();
    }
    text += QString(depth * 2, ' ') + cells.join(" | ") + "\n";
    text += print(model, model.index(row, 0, parent), depth + 1);
  }
  return text;
}

QStringList column_text(const QAbstractItemModel& model, int column) {
  QStringList values;
  for (int row = 0; row < model.rowCount(); ++row)
    values << model.index(row, column).data().toString();
  return values;
}

void check_model(QAbstractItemModel* model) {
  QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

}  // namespace

class ModelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { run_ = test::analyzed(test::small_run()); }

  void contextTreeMatchesGolden() {
    ContextTreeModel model(run_);
    QCOMPARE(print(model),
             "<program> | 861.00 ms | 100.0% |  | 1.390 s | \n"
             "  main | 861.00 ms | 100.0% | 10.00 ms | 1.390 s | 1\n"
             "    worker(void*) | 671.00 ms | 77.9% | 0 s | 1.190 s | 2\n"
             "      solve(Grid&) | 670.00 ms | 77.8% | 250.00 ms | 1.190 s | 40\n"
             "        relax(Row&, int) | 320.00 ms | 37.2% | 320.00 ms | 620.00 ms | 400\n"
             "        queue lock (mutex) | 100.00 ms | 11.6% | 100.00 ms | 120.00 ms | \n"
             "      phase barrier (barrier) | 1.00 ms | 0.1% | 1.00 ms | 0 s | \n"
             "    log_message | 100.00 ms | 11.6% | 100.00 ms | 100.00 ms | 1,000\n"
             "    solve(Grid&) | 80.00 ms | 9.3% | 30.00 ms | 90.00 ms | 1\n"
             "      relax(Row&, int) | 50.00 ms | 5.8% | 50.00 ms | 60.00 ms | 400\n");
  }

  void contextTreeRolesHoldAnalysisValues() {
    ContextTreeModel model(run_);
    const QModelIndex solve = model.index_of(2, ContextTreeModel::kNormalized);
    QCOMPARE(solve.data(NumberRole).toDouble(), run_->view.contexts[2].normalized_s);
    QCOMPARE(solve.siblingAtColumn(ContextTreeModel::kSelf).data(NumberRole).toDouble(),
             run_->view.contexts[2].normalized_self_s);
    QCOMPARE(solve.data(KeyRole).toInt(), 2);
    QCOMPARE(model.node(solve), 2);
    QCOMPARE(model.index_of(4).data(KindRole).toUInt(), uint32_t{capture::kMutex});
    QCOMPARE(model.parent(model.index_of(3)), model.index_of(2));
    QCOMPARE(model.parent(model.index_of(0)), model.index_of(ContextTreeModel::kProgramNode));
  }

  void contextTreePassesModelTester() {
    ContextTreeModel model(run_);
    check_model(&model);
    ProfileFilterProxy proxy(ContextTreeModel::kName, ContextTreeModel::kNormalized);
    proxy.setSourceModel(&model);
    proxy.sort(ContextTreeModel::kSelf, Qt::AscendingOrder);
    check_model(&proxy);  // unfiltered: hasChildren() answered by the source
    proxy.set_search("relax");
    check_model(&proxy);
    proxy.set_minimum(0.06);
    check_model(&proxy);
  }

  void emptyTreeHasNoRows() {
    ContextTreeModel model(nullptr);
    QCOMPARE(model.rowCount(), 0);
    check_model(&model);
  }

  void contextsOfAProcedureHeaviestFirst() {
    ContextTreeModel model(run_);
    QCOMPARE(model.contexts_of(test::kSolve, false), (std::vector<int>{2, 6}));
    QCOMPARE(model.contexts_of(test::kRelax, false), (std::vector<int>{3, 7}));
    QCOMPARE(model.contexts_of(test::kQueueLock, true), (std::vector<int>{4}));
    QVERIFY(model.contexts_of(test::kQueueLock, false).empty());
  }

  void heaviestPathFollowsTheLargestChild() {
    ContextTreeModel model(run_);
    QStringList path;
    for (QModelIndex at = model.index(0, 0); at.isValid(); at = model.heaviest_child(at)) {
      path << at.data(NumberRole).toString();
    }
    QCOMPARE(path, (QStringList{"<program>", "main", "worker(void*)", "solve(Grid&)",
                                "relax(Row&, int)"}));
  }

  void treeSearchKeepsThePathToMatchesAndTheirSubtrees() {
    ContextTreeModel model(run_);
    ProfileFilterProxy proxy(ContextTreeModel::kName, ContextTreeModel::kNormalized);
    proxy.setSourceModel(&model);
    proxy.set_search("RELAX");
    QCOMPARE(names(proxy),
             "<program>\n  main\n    worker(void*)\n      solve(Grid&)\n        relax(Row&, int)\n"
             "    solve(Grid&)\n      relax(Row&, int)\n");
    proxy.set_search("worker");
    QCOMPARE(names(proxy),
             "<program>\n  main\n    worker(void*)\n      solve(Grid&)\n        relax(Row&, int)\n"
             "        queue lock\n      phase barrier\n");
    proxy.set_search("no such procedure");
    QCOMPARE(proxy.rowCount(), 0);
  }

  void treeMinimumHidesSmallContexts() {
    ContextTreeModel model(run_);
    ProfileFilterProxy proxy(ContextTreeModel::kName, ContextTreeModel::kNormalized);
    proxy.setSourceModel(&model);
    proxy.set_minimum(0.09);
    QCOMPARE(names(proxy),
             "<program>\n  main\n    worker(void*)\n      solve(Grid&)\n        relax(Row&, int)\n"
             "        queue lock\n    log_message\n");
  }

  void treeSortsByNumbersNotText() {
    ContextTreeModel model(run_);
    ProfileFilterProxy proxy(ContextTreeModel::kName, ContextTreeModel::kNormalized);
    proxy.setSourceModel(&model);
    proxy.sort(ContextTreeModel::kSelf, Qt::DescendingOrder);
    const QModelIndex main = proxy.index(0, 0, proxy.index(0, 0));
    // Self: log_message 100 ms, solve 30 ms, worker 0 s ("100.00 ms" < "30.00 ms" as text).
    QStringList order;
    for (int row = 0; row < proxy.rowCount(main); ++row)
      order << proxy.index(row, 0, main).data(NumberRole).toString();
    QCOMPARE(order, (QStringList{"log_message", "solve(Grid&)", "worker(void*)"}));
  }

  void procedureTableMatchesGolden() {
    ProcedureTableModel model(run_);
    check_model(&model);
    QCOMPARE(print(model),
             "main | 861.00 ms | 100.0% | 10.00 ms | 1.390 s | 1 | solver.c:40\n"
             "solve(Grid&) | 750.00 ms | 87.1% | 280.00 ms | 1.280 s | 41 | solve.cpp:12\n"
             "worker(void*) | 671.00 ms | 77.9% | 0 s | 1.190 s | 2 | solver.c:30\n"
             "relax(Row&, int) | 370.00 ms | 43.0% | 370.00 ms | 680.00 ms | 400 | relax.cpp:7\n"
             "log_message | 100.00 ms | 11.6% | 100.00 ms | 100.00 ms | 1,000 | log.c:54\n");
    QCOMPARE(model.index(1, 0).data(KeyRole).toULongLong(), test::kSolve);
    QCOMPARE(model.row_of(test::kRelax), 3);
    QCOMPARE(model.row_of(0xdead), -1);
  }

  void procedureTableSortsAndFiltersThroughTheProxy() {
    ProcedureTableModel model(run_);
    ProfileFilterProxy proxy(ProcedureTableModel::kName, ProcedureTableModel::kNormalized);
    proxy.setSourceModel(&model);
    check_model(&proxy);
    proxy.sort(ProcedureTableModel::kCalls, Qt::DescendingOrder);
    QCOMPARE(
        column_text(proxy, ProcedureTableModel::kName),
        (QStringList{"log_message", "relax(Row&, int)", "solve(Grid&)", "worker(void*)", "main"}));
    proxy.set_search("L");  // relax, solve, log_message
    QCOMPARE(column_text(proxy, ProcedureTableModel::kName),
             (QStringList{"log_message", "relax(Row&, int)", "solve(Grid&)"}));
    proxy.set_minimum(0.3);  // not log_message's 100 ms
    QCOMPARE(column_text(proxy, ProcedureTableModel::kName),
             (QStringList{"relax(Row&, int)", "solve(Grid&)"}));
  }

  void calleesDivideAProceduresTime() {
    CallGraphModel callees(run_, CallGraphModel::kCallees);
    check_model(&callees);
    callees.show(test::kSolve, false);
    QCOMPARE(print(callees),
             "relax(Row&, int) | 370.00 ms | 49.3% | 400\n"
             "queue lock (mutex) | 100.00 ms | 13.3% | \n"
             "self | 280.00 ms | 37.3% | \n");
    QCOMPARE(callees.index(0, 0).data(KeyRole).toULongLong(), test::kRelax);
    QCOMPARE(callees.index(1, 0).data(KindRole).toUInt(), uint32_t{capture::kMutex});
    callees.show(test::kQueueLock, true);  // objects have no callees
    QCOMPARE(callees.rowCount(), 0);
  }

  void callersReadTheCallGraphBackwards() {
    CallGraphModel callers(run_, CallGraphModel::kCallers);
    callers.show(test::kSolve, false);
    check_model(&callers);
    QCOMPARE(print(callers),
             "worker(void*) | 670.00 ms | 99.9% | 40\n"
             "main | 80.00 ms | 9.3% | 1\n");
    callers.show(test::kMain, false);
    QCOMPARE(print(callers), "<program> | 861.00 ms | 100.0% | 1\n");
    callers.show(test::kQueueLock, true);
    QCOMPARE(print(callers), "solve(Grid&) | 100.00 ms | 13.3% | \n");
    QCOMPARE(callers.index(0, 0).data(KeyRole).toULongLong(), test::kSolve);
  }

  void lockTableMatchesGolden() {
    LockTableModel model(run_);
    check_model(&model);
    QCOMPARE(
        print(model),
        "queue lock (mutex) | 100.00 ms | 11.6% | 40.00 ms | 120.00 ms | 40 | 12 | 3.33 ms | 0.60\n"
        "phase barrier (barrier) | 1.00 ms | 0.1% | 30.00 ms | 0 s | 2 | 1 | 30.00 ms | 0.67\n");
    QCOMPARE(model.row_of(test::kPhaseBarrier), 1);
  }

  void threadTableMatchesGolden() {
    ThreadTableModel model(run_);
    check_model(&model);
    QCOMPARE(print(model),
             "0 | solver |  | 200.00 ms | 23.2% | 230.00 ms | 0 s | 620.00 ms | 11.00 ms | 230.00 "
             "ms | 1,403\n"
             "1 | worker | #0 | 340.50 ms | 39.5% | 600.00 ms | 0 s | 100.00 ms | 50.00 ms | "
             "600.00 ms | 221\n"
             "2 | worker | #0 | 310.50 ms | 36.1% | 600.00 ms | 0 s | 100.00 ms | 50.00 ms | "
             "590.00 ms | 220\n");
  }

  void runDetailsShowSamplingQuality() {
    RunDetailsModel model(run_);
    check_model(&model);
    auto value = [&](const QString& property) {
      const int row = model.row_of(property);
      return row < 0 ? QString("(missing)")
                     : model.index(row, RunDetailsModel::kValue).data().toString();
    };
    QCOMPARE(value("Command"), "/opt/demo/solver --threads 2");
    QCOMPARE(value("Machine topology"), "Machine:1 Package:1 Core:2 PU:2");
    QCOMPARE(value("Processors (P)"), "2");
    QCOMPARE(value("Period"), "2.00 ms");
    QCOMPARE(value("Samples"), "430");
    QCOMPARE(value("Torn rate"), "0.233%");
    QCOMPARE(value("Dilation removed"), "250.0 µs");
    QCOMPARE(value("Ended normally"), "yes");
    QCOMPARE(model.index(model.row_of("Torn rate"), 1).data(NumberRole).toDouble(), 3.0 / 1290);
  }

  void runListShowsTheStoresRuns() {
    profile::RunSummary a, b;
    a.id = 1;
    a.arguments = "app --fast";
    a.processors = 4;
    a.elapsed_s = 2.5;
    b.id = 2;
    b.program = "/bin/other";
    b.final = false;
    RunListModel model({a, b});
    check_model(&model);
    QCOMPARE(column_text(model, RunListModel::kCommand), (QStringList{"app --fast", "/bin/other"}));
    QCOMPARE(column_text(model, RunListModel::kFinal), (QStringList{"normally", "abnormally"}));
    QCOMPARE(model.index(1, 0).data(KeyRole).toLongLong(), 2);
  }

  void csvHoldsTheUnformattedNumbers() {
    LockTableModel model(run_);
    QString text;
    QTextStream out(&text);
    write_csv(model, out);
    out.flush();
    const QStringList lines = text.split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0],
             "Object,Normalized,% elapsed,Wait,Hold,Acquired,Contended,Mean wait,Mean queue");
    const QStringList first = lines[1].split(',');
    QCOMPARE(first[0], "queue lock");
    QCOMPARE(first[1].toDouble(), run_->view.locks[0].totals.normalized_s);
    QCOMPARE(first[5], "40");
    QCOMPARE(first[8].toDouble(), run_->view.locks[0].mean_queue);
  }

  void csvWritesATreeDepthFirst() {
    ContextTreeModel model(run_);
    ProfileFilterProxy proxy(ContextTreeModel::kName, ContextTreeModel::kNormalized);
    proxy.setSourceModel(&model);
    proxy.set_search("log_message");
    QString text;
    QTextStream out(&text);
    write_csv(proxy, out);
    out.flush();
    QCOMPARE(text.section('\n', 0, 0),
             "depth,Calling context,Normalized,% elapsed,Self,Processor,Calls");
    QCOMPARE(text.count('\n'), 4);  // header, <program>, main, log_message
    QVERIFY(text.section('\n', 3, 3).startsWith("2,log_message,0.1"));
  }

  void csvQuotesFieldsWithCommas() {
    ProcedureTableModel model(run_);
    QString text;
    QTextStream out(&text);
    write_csv(model, out);
    out.flush();
    QVERIFY(text.contains("\n\"relax(Row&, int)\","));
  }

  void formatsLikeTheReport() {
    QCOMPARE(format_seconds(0), "0 s");
    QCOMPARE(format_seconds(123.45), "123.5 s");
    QCOMPARE(format_seconds(1.3084), "1.308 s");
    QCOMPARE(format_seconds(0.095), "95.00 ms");
    QCOMPARE(format_seconds(11.8e-6), "11.8 µs");
    QCOMPARE(format_percent(0.995), "99.5%");
    QCOMPARE(format_count(1234567), "1,234,567");
  }

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

  void storedPredictionsAreReadNewestFirst() {
    const std::string json = analysis::predictions_json(test::small_predictions());
    const std::vector<WhatIf> read = read_what_ifs(
        {{"2026-01-01 10:00:00", "--cores 1", json}, {"2026-01-01 11:00:00", "--zero x", "{oops"}});
    QCOMPARE(read.size(), size_t(2));
    QCOMPARE(read[0].stored.question, "--zero x");  // the newest
    QVERIFY(!read[0].predictions);
    QVERIFY2(QString::fromStdString(read[0].error).startsWith("stored prediction unreadable: "),
             read[0].error.c_str());
    QVERIFY(read[0].error.find('\n') == std::string::npos);
    QCOMPARE(read[1].stored.made, "2026-01-01 10:00:00");
    QVERIFY(read[1].predictions);
    QCOMPARE(read[1].predictions->recorded_s, 0.8);
    QVERIFY(read[1].error.empty());
  }

  void whatIfListMatchesGolden() {
    const auto run = test::with_what_ifs(
        {{"2026-01-01 10:00:00", "--group 0,1|2 --cores 1",
          analysis::predictions_json(test::small_predictions())},
         {"2026-01-01 11:00:00", "--zero x", "[]"}});
    WhatIfListModel model(run);
    check_model(&model);
    QCOMPARE(print(model),
             "2026-01-01 11:00:00 | --zero x | unreadable\n"
             "2026-01-01 10:00:00 | --group 0,1|2 --cores 1 | -11.1%\n");
    QCOMPARE(model.index(1, WhatIfListModel::kCheck).data(NumberRole).toDouble(), (0.8 - 0.9) / 0.9);
    QVERIFY(!model.index(0, WhatIfListModel::kCheck).data(NumberRole).isValid());
    QVERIFY(model.index(0, 0).data(Qt::ToolTipRole).toString().startsWith("stored prediction unreadable"));
    QCOMPARE(model.index(0, 0).data(KeyRole).toInt(), 0);
    WhatIfListModel none(nullptr);
    QCOMPARE(none.rowCount(), 0);
    check_model(&none);
  }

  void whatIfAnswersMatchGolden() {
    const analysis::Predictions p = test::small_predictions();
    WhatIfAnswerModel model;
    check_model(&model);
    model.set_predictions(&p);
    check_model(&model);
    QCOMPARE(print(model),
             "--group 0,1|2 | solver,worker | worker | 840.00 ms | +5.0% | 0,1|2 | \n"
             "--cores 1 #1 | solver,worker,worker | 1.240 s | +55.0% | 0,1,2 | all 1 tried\n"
             "--cores 1 shared | all threads sharing the 1 processor | 1.320 s | +65.0% |  | "
             "as the OS would schedule them\n"
             "--zero log_message | log_message taking no time | 680.00 ms | -15.0% |  | \n"
             "--speedup relax(Row&, int)=25 | relax(Row&, int) 25% faster | 720.00 ms | -10.0% |  "
             "| \n"
             "--migrate solve(Grid&) | solve(Grid&) moved to the thread it wakes | 800.20 ms | "
             "+0.0% |  | 12.00 ms of it woke nobody\n");
    // The numbers are the prediction's; the change is relative to the recorded replay.
    QCOMPARE(model.index(1, WhatIfAnswerModel::kPredicted).data(NumberRole).toDouble(), 1.24);
    QCOMPARE(model.index(1, WhatIfAnswerModel::kChange).data(NumberRole).toDouble(),
             (1.24 - 0.8) / 0.8);
    QCOMPARE(model.answers()[2].kind, Answer::kShared);
    // Sorted by predicted time through the views' proxy, fastest first.
    ProfileFilterProxy proxy(WhatIfAnswerModel::kQuestion, WhatIfAnswerModel::kPredicted);
    proxy.setSourceModel(&model);
    proxy.sort(WhatIfAnswerModel::kPredicted, Qt::AscendingOrder);
    check_model(&proxy);
    QCOMPARE(column_text(proxy, WhatIfAnswerModel::kQuestion).first(), "--zero log_message");
    QCOMPARE(column_text(proxy, WhatIfAnswerModel::kQuestion).last(), "--cores 1 shared");
    proxy.sort(WhatIfAnswerModel::kPlacement, Qt::DescendingOrder);
    QCOMPARE(column_text(proxy, WhatIfAnswerModel::kPlacement).first(), "0,1|2");
    model.set_predictions(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void aSearchThatWasNotExhaustiveSaysSo() {
    analysis::Predictions p = test::small_predictions();
    p.searches[0].exhaustive = false;
    p.searches[0].candidates = 12345;
    p.searches[0].rounds = 4;
    p.recorded_s = 0;  // no reference: no change
    const std::vector<Answer> answers = answers_of(p);
    QCOMPARE(answers[1].note, "local search: 12,345 tried in 4 rounds");
    WhatIfAnswerModel model;
    model.set_predictions(&p);
    QCOMPARE(model.index(0, WhatIfAnswerModel::kChange).data().toString(), "-");
    QVERIFY(!model.index(0, WhatIfAnswerModel::kChange).data(NumberRole).isValid());
  }

  void whatIfDetailsMatchGolden() {
    const analysis::Predictions p = test::small_predictions();
    WhatIfDetailsModel model;
    check_model(&model);
    model.set_predictions(&p);
    check_model(&model);
    QCOMPARE(print(model),
             "Model check | -11.1% | \n"
             "  Recorded elapsed time | 900.00 ms | \n"
             "  Processors | 2 | \n"
             "  Replayed as recorded | 800.00 ms | \n"
             "Critical path | 700.00 ms | 77.8%\n"
             "  On a processor | 650.00 ms | \n"
             "  Off the processor (I/O, sleep) | 50.00 ms | \n"
             "  Threads | 3 | \n"
             "    1 worker | 400.00 ms | 57.1%\n"
             "    2 worker | 250.00 ms | 35.7%\n"
             "    0 solver | 50.00 ms | 7.1%\n"
             "  Procedures | 2 | \n"
             "    solve(Grid&) | 600.00 ms | 85.7%\n"
             "    relax(Row&, int) | 350.00 ms | 50.0%\n"
             "  Locks held | 1 | \n"
             "    queue lock | 70.00 ms | 10.0%\n"
             "Trace | 12,000 events | \n"
             "  Records | 15,000 | \n"
             "  Samples | 400 | \n"
             "  Events dropped | 0 | \n"
             "  Bytes | 204,000 | \n"
             "  Complete | yes | \n"
             "  Waits replayed as delays | 3 | \n"
             "  Forced waits | 0 | \n"
             "  Overhead removed | 2.00 ms | \n"
             "  Steps held at most | 5,000 | \n"
             "  Predicted in | 15.00 ms | \n"
             "  Records per second | 1.00 M | \n");
    auto value = [&](const char* group, const char* name) {
      return model.find(group, name).siblingAtColumn(WhatIfDetailsModel::kValue).data(NumberRole);
    };
    QCOMPARE(value("", "Critical path").toDouble(), 0.7);
    QCOMPARE(model.find("", "Critical path")
                 .siblingAtColumn(WhatIfDetailsModel::kShare)
                 .data(NumberRole)
                 .toDouble(),
             0.7 / 0.9);
    QCOMPARE(value("Model check", "Replayed as recorded").toDouble(), 0.8);
    QCOMPARE(value("Threads", "2 worker").toDouble(), 0.25);
    QCOMPARE(value("Trace", "Events dropped").toULongLong(), 0ull);
    QVERIFY(!model.find("Threads", "9 nobody").isValid());
    // The critical path's entries by name (threads also by name alone).
    QCOMPARE(model.find_on_path("relax(Row&, int)").data(KindRole).toInt(),
             int(WhatIfDetailsModel::kProcedure));
    QCOMPARE(model.find_on_path("queue lock").data(KindRole).toInt(), int(WhatIfDetailsModel::kLock));
    QCOMPARE(model.find_on_path("solver").data().toString(), "0 solver");
    QVERIFY(!model.find_on_path("Trace").isValid());
    QCOMPARE(model.open_groups().size(), size_t(5));  // all but the trace
    model.set_predictions(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }

  void anEmptyCriticalPathListSaysNone() {
    analysis::Predictions p = test::small_predictions();
    p.critical_path.locks.clear();
    p.quality.complete = false;
    p.quality.dropped = 7;
    WhatIfDetailsModel model;
    model.set_predictions(&p);
    check_model(&model);
    const QModelIndex locks = model.find("Critical path", "Locks held");
    QCOMPARE(locks.siblingAtColumn(WhatIfDetailsModel::kValue).data().toString(), "none");
    QCOMPARE(model.rowCount(locks), 0);
    QCOMPARE(trace_warning(p),
             "the trace ends early (the run did not finish writing it); the trace lost 7 events: "
             "predictions are approximate");
  }

  void whatIfSentences() {
    const analysis::Predictions p = test::small_predictions();
    QCOMPARE(check_sentence(p),
             "Replayed as recorded 800.00 ms against 900.00 ms recorded on 2 processors: -11.1%, "
             "the model's error on what it saw.");
    QCOMPARE(critical_path_sentence(p),
             "Critical path (every thread on a processor of its own) 700.00 ms, 77.8% of the "
             "recorded elapsed time: 650.00 ms on a processor, 50.00 ms off it (I/O, sleep).");
    QVERIFY(trace_warning(p).isEmpty());
    QCOMPARE(signed_change(1.1, 1.0), "+10.0%");
    QCOMPARE(signed_change(1.0, 0), "-");
    QCOMPARE(signed_change(0.9999, 1.0), "+0.0%");  // not "-0.0%"
    QCOMPARE(signed_change(0.999, 1.0), "-0.1%");
  }

  // One sentence for each reason there is nothing to show, naming the command to run.
  void whatIfsMissingSaysWhatToDo() {
    QCOMPARE(what_ifs_missing(nullptr), "No run open: File ▸ Open (Ctrl+O).");
    // A capture file: untraced, then traced.
    QVERIFY(what_ifs_missing(run_.get()).startsWith("This capture has no trace: record the "
                                                    "program with 'quartz run --trace'"));
    profile::Run traced = test::small_run();
    traced.info[capture::run_keys::kTraceEvents] = "100";
    auto capture = test::analyzed(traced);
    std::const_pointer_cast<RunData>(capture)->source = "run.qcap";
    QCOMPARE(what_ifs_missing(capture.get()),
             "What-ifs are stored with runs in a store: import this capture and its trace with "
             "'quartz import run.qcap', then ask 'quartz predict'.");
    // A run of a store: without a trace, with one but no predictions, with predictions.
    QCOMPARE(what_ifs_missing(test::with_what_ifs({}, false).get()),
             "Run 1 has no trace: record the program again with 'quartz run --trace', then ask "
             "'quartz predict' about that run.");
    QCOMPARE(what_ifs_missing(test::with_what_ifs({}, true).get()),
             "No predictions are stored with run 1 yet: ask, for instance, 'quartz predict "
             "--store runs.db 1 --cores 2' (or --group, --zero, --speedup, --migrate), then "
             "reload it (F5).");
    QVERIFY(what_ifs_missing(test::with_what_ifs({{"t", "q", "{}"}}).get()).isEmpty());
    auto unlisted = std::const_pointer_cast<RunData>(test::with_what_ifs({}));
    unlisted->what_ifs_error = "runs.db: cannot read run 1";
    QCOMPARE(what_ifs_missing(unlisted.get()),
             "The predictions stored with this run could not be read (runs.db: cannot read run "
             "1).");
  }

  void runDetailsShowTheTrace() {
    profile::Run traced = test::small_run();
    traced.info[capture::run_keys::kTraceEvents] = "16665";
    traced.info[capture::run_keys::kTraceDropped] = "2";
    traced.info[capture::run_keys::kTraceBytes] = "248658";
    RunDetailsModel model(test::analyzed(traced));
    check_model(&model);
    auto value = [&](const QString& property) {
      const int row = model.row_of(property);
      return row < 0 ? QString("(missing)")
                     : model.index(row, RunDetailsModel::kValue).data().toString();
    };
    QCOMPARE(value("Traced"), "yes");
    QCOMPARE(value("Trace events"), "16,665");
    QCOMPARE(value("Trace events dropped"), "2");
    QCOMPARE(value("Trace bytes"), "248,658");
    QCOMPARE(value("Stored predictions"), "(missing)");  // a capture file
    RunDetailsModel untraced(run_);
    QVERIFY(untraced.index(untraced.row_of("Traced"), 1).data().toString().startsWith("no"));
    QCOMPARE(untraced.row_of("Trace events"), -1);
    RunDetailsModel stored(test::with_what_ifs({{"t", "q", "{}"}}));
    QCOMPARE(stored.index(stored.row_of("Stored predictions"), 1).data(NumberRole).toULongLong(),
             1ull);
  }

  void missingFilesAreNamed() {
    try {
      load_run("/nonexistent/run.qcap", "quartz.db");
      QFAIL("loaded a missing file");
    } catch (const LoadError& e) {
      QCOMPARE(QString(e.what()), "/nonexistent/run.qcap: no such file");
    }
  }

 private:
  // Names only (NumberRole of column 0), indented.
  static QString names(const QAbstractItemModel& model, const QModelIndex& parent = {},
                       int depth = 0) {
    QString text;
    for (int row = 0; row < model.rowCount(parent); ++row) {
      const QModelIndex index = model.index(row, 0, parent);
      text += QString(depth * 2, ' ') + index.data(NumberRole).toString() + "\n" +
              names(model, index, depth + 1);
    }
    return text;
  }

  std::shared_ptr<const RunData> run_;
};

QTEST_GUILESS_MAIN(ModelTest)
#include "model_test.moc"
