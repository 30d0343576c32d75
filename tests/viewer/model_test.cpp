// The viewer's profile models without widgets: golden trees and tables from a run whose
// numbers are known (synthetic_run.h), QAbstractItemModelTester on each model and its
// proxy, sorting, filtering, call-graph navigation, the run list, CSV export and number
// formats. What-if models: what_if_model_test.cpp; the command line: loading_test.cpp.
#include <malloc.h>

#include <QTest>

#include "tests/testing/synthetic_run.h"
#include "tests/viewer/model_text.h"
#include "viewer/models/call_graph_model.h"
#include "viewer/models/context_tree_model.h"
#include "viewer/models/csv_export.h"
#include "viewer/models/filter_proxy.h"
#include "viewer/models/finding_subject.h"
#include "viewer/models/format.h"
#include "viewer/models/lock_table_model.h"
#include "viewer/models/procedure_table_model.h"
#include "viewer/models/roles.h"
#include "viewer/models/run_details_model.h"
#include "viewer/models/run_list_model.h"
#include "viewer/models/thread_table_model.h"

using namespace quartz;
using namespace quartz::viewer;
using test::check_model;
using test::column_text;
using test::print;

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

  // The model keeps indexes into the analysis's contexts, not copies of them: a copy of
  // the view in each column's function took 24 times the capture's size to open a run of
  // a million contexts. Truth: the C library's allocator, before and after.
  void treeModelAllocatesAFewIndexesPerContext() {
    constexpr size_t kContexts = 200000;
    const std::shared_ptr<const RunData> large = test::analyzed(test::large_run(kContexts));
    const size_t before = mallinfo2().uordblks;
    if (before == 0) QSKIP("the allocator keeps no statistics (a sanitizer's)");
    ContextTreeModel model(large);
    const size_t after = mallinfo2().uordblks;
    QVERIFY2(after < before + kContexts * 64,
             qPrintable(QString("%1 bytes a context").arg(double(after - before) / kContexts)));
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
        "queue lock (mutex) | 100.00 ms | 11.6% | 40.00 ms | 120.00 ms | 40 | 12 | 3.33 ms | 0.60 "
        "| 1\n"
        "phase barrier (barrier) | 1.00 ms | 0.1% | 30.00 ms | 0 s | 2 | 1 | 30.00 ms | 0.67 | "
        "2\n");
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
             "Object,Normalized,% elapsed,Wait,Hold,Acquired,Contended,Mean wait,Mean queue,Id");
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

  // A starvation finding names the thread that was running for most of it: it opens that
  // thread (of two with its name, the one charged most); "the program" opens nothing.
  void aStarvationFindingOpensItsThread() {
    analysis::ProfileView view;
    for (uint32_t i = 0; i < 3; ++i) {
      analysis::ThreadRow t;
      t.index = i;
      t.name = i == 0 ? "main" : "solver";
      view.threads.push_back(t);
    }
    view.threads[1].starved_startup_s = 0.1;
    view.threads[2].starved_later_s = 0.3;
    analysis::Finding f;
    f.property = analysis::Property::starvation;
    f.subject = "solver";
    const FindingSubject subject = subject_of(view, f);
    QCOMPARE(subject.kind, FindingSubject::kThread);
    QCOMPARE(subject.key, uint64_t{2});
    f.subject = "the program";
    QCOMPARE(subject_of(view, f).kind, FindingSubject::kNone);
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
