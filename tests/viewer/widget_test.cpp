// quartz-view's window with a run whose numbers are known (synthetic_run.h): selecting a
// row anywhere updates the charts, Enter jumps between views and Alt+Left comes back,
// keyboard shortcuts, search, exports, the remembered layout (in a temporary settings
// file), errors that never crash, a tree of 100,000 contexts read lazily, and the What-ifs
// view of stored predictions.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QClipboard>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QIdentityProxyModel>
#include <QImage>
#include <QLineEdit>
#include <QProgressDialog>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "analysis/prediction_json.h"
#include "profile/store.h"
#include "tests/testing/capture_file_fixture.h"
#include "tests/testing/synthetic_run.h"
#include "tests/viewer/model_text.h"
#include "tests/viewer/pixels.h"
#include "viewer/charts/chart_view.h"
#include "viewer/charts/histogram_chart.h"
#include "viewer/charts/queue_chart.h"
#include "viewer/charts/runnable_chart.h"
#include "viewer/charts/state_chart.h"
#include "viewer/charts/what_if_chart.h"
#include "viewer/main_window.h"
#include "viewer/models/csv_export.h"
#include "viewer/models/finding_subject.h"
#include "viewer/models/roles.h"
#include "viewer/widgets/call_graph_panel.h"
#include "viewer/widgets/comparison_view.h"
#include "viewer/widgets/detail_panel.h"
#include "viewer/widgets/filter_bar.h"
#include "viewer/widgets/findings_view.h"
#include "viewer/widgets/hierarchy_view.h"
#include "viewer/widgets/lock_view.h"
#include "viewer/widgets/procedure_view.h"
#include "viewer/widgets/progress_dialog.h"
#include "viewer/widgets/ranked_table.h"
#include "viewer/widgets/run_picker.h"
#include "viewer/widgets/scaling_view.h"
#include "viewer/widgets/thread_view.h"
#include "viewer/widgets/what_if_view.h"

using namespace quartz;
using namespace quartz::viewer;

namespace {

// Records which rows of the source a view reads.
class ReadRecorder : public QIdentityProxyModel {
 public:
  QVariant data(const QModelIndex& index, int role) const override {
    rows_read.insert(mapToSource(index).internalId());
    return QIdentityProxyModel::data(index, role);
  }
  mutable std::set<quintptr> rows_read;
};

using test::count_color;

}  // namespace

class WidgetTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    run_ = test::analyzed(test::small_run());
  }

  void init() {
    settings_ = std::make_unique<QSettings>(dir_.filePath("viewer.ini"), QSettings::IniFormat);
    settings_->clear();
    window_ = std::make_unique<MainWindow>(*settings_);
    window_->set_quiet_errors(true);
    window_->set_run(run_);
    window_->show();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
  }

  void cleanup() { window_.reset(); }

  void opensOnTheProgramWithTheHeaviestPathExpanded() {
    HierarchyView* h = window_->hierarchy();
    QCOMPARE(window_->current_view(), MainWindow::kHierarchy);
    QCOMPARE(h->current_node(), ContextTreeModel::kProgramNode);
    for (int node : {0, 1, 2})
      QVERIFY(h->tree()->isExpanded(proxy_index(node)));  // main, worker, solve
    QVERIFY(!h->tree()->isExpanded(proxy_index(6)));      // the serial solve: 9% of elapsed
    // The program's histogram is the run's parallelism, in one part.
    const auto parts = window_->details()->histogram()->bar_parts_s();
    QCOMPARE(parts.size(), size_t(1));
    QVERIFY(close(parts[0], run_->view.parallelism_s));
  }

  void selectingARowAnywhereUpdatesTheCharts() {
    window_->show_view(MainWindow::kProcedures);
    QVERIFY(window_->procedures()->select_procedure(test::kSolve));
    const analysis::ProcedureRow& solve = run_->view.procedures[1];
    QCOMPARE(solve.name, "solve(Grid&)");
    auto parts = window_->details()->histogram()->bar_parts_s();
    QCOMPARE(parts.size(), size_t(2));
    QVERIFY(close(parts[0], solve.totals.histogram_self_s));
    QVERIFY(close(sum(parts[0], parts[1]), solve.totals.histogram_s));
    QVERIFY(close(window_->details()->states()->bars_s(), states(solve.totals)));
    QCOMPARE(window_->details()->histogram()->chart()->title(), "Parallelism of solve(Grid&)");

    window_->show_view(MainWindow::kThreads);
    QVERIFY(window_->threads()->select_key(2u));
    QVERIFY(close(window_->details()->states()->bars_s(), states(run_->view.threads[2].totals)));
    // Runnable counts up to the last with time in it: k = 3 while ready.
    QVERIFY(close(window_->details()->runnable()->bars_s()[0],
                  run_->view.threads[2].totals.runnable_s[capture::kBusy]));
    QVERIFY(close(window_->details()->runnable()->bars_s()[3],
                  run_->view.threads[2].totals.runnable_s[capture::kReady]));

    window_->show_view(MainWindow::kLocks);
    QVERIFY(window_->locks()->select_lock(test::kPhaseBarrier));
    QCOMPARE(window_->details()->histogram()->chart()->title(), "Parallelism of phase barrier");
    QVERIFY(close(window_->locks()->queue_chart()->bars_s(), run_->view.locks[1].queue_s));
    QCOMPARE(
        window_->locks()->taken_in()->table()->proxy()->index(0, 0).data(NumberRole).toString(),
        "worker(void*)");
    QVERIFY(window_->locks()->select_lock(test::kQueueLock));
    QCOMPARE(
        window_->locks()->taken_in()->table()->proxy()->index(0, 0).data(NumberRole).toString(),
        "solve(Grid&)");

    // Back on the hierarchy the panel shows the hierarchy's selection again.
    window_->show_view(MainWindow::kHierarchy);
    QVERIFY(close(window_->details()->histogram()->bar_parts_s()[0], run_->view.parallelism_s));
    QVERIFY(window_->hierarchy()->select_node(4));
    parts = window_->details()->histogram()->bar_parts_s();
    const auto self = run_->view.histogram_self_of(run_->view.contexts[4]);
    QVERIFY(close(parts[0], {self.begin(), self.end()}));
    QCOMPARE(window_->details()->states()->chart()->title(),
             "States of queue lock (all its contexts)");
  }

  void enterJumpsBetweenViewsAndAltLeftComesBack() {
    window_->show_view(MainWindow::kProcedures);
    QVERIFY(window_->procedures()->select_procedure(test::kSolve));
    QTest::keyClick(window_->procedures()->table(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kHierarchy);
    QCOMPARE(window_->hierarchy()->current_node(), 2);  // solve's heaviest context
    QTest::keyClick(window_.get(), Qt::Key_F3);
    QCOMPARE(window_->hierarchy()->current_node(), 6);  // its next one
    QTest::keyClick(window_.get(), Qt::Key_F3);
    QCOMPARE(window_->hierarchy()->current_node(), 2);

    QTest::keyClick(window_.get(), Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(window_->current_view(), MainWindow::kProcedures);
    QCOMPARE(window_->procedures()->current_key().toULongLong(), test::kSolve);
    QTest::keyClick(window_.get(), Qt::Key_Right, Qt::AltModifier);
    QCOMPARE(window_->current_view(), MainWindow::kHierarchy);

    // A lock's context opens the lock; a procedure's, the procedure with its callers.
    QVERIFY(window_->hierarchy()->select_node(4));
    QTest::keyClick(window_->hierarchy()->tree(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kLocks);
    QCOMPARE(window_->locks()->current_key().toULongLong(), test::kQueueLock);
    window_->show_view(MainWindow::kHierarchy);
    QVERIFY(window_->hierarchy()->select_node(5));
    QTest::keyClick(window_->hierarchy()->tree(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kProcedures);
    QCOMPARE(window_->procedures()->current_key().toULongLong(), test::kLog);
    QCOMPARE(window_->procedures()->callers()->model()->index(0, 0).data(NumberRole).toString(),
             "main");
  }

  void callersAndCalleesWalkTheCallGraph() {
    ProcedureView* p = window_->procedures();
    window_->show_view(MainWindow::kProcedures);
    QVERIFY(p->select_procedure(test::kSolve));
    RankedTable* callees = p->callees()->table();
    QCOMPARE(callees->proxy()->rowCount(), 3);  // relax, self, queue lock: by normalized time
    callees->setFocus();
    callees->setCurrentIndex(callees->proxy()->index(0, 0));
    QCOMPARE(callees->proxy()->index(0, 0).data(NumberRole).toString(), "relax(Row&, int)");
    QTest::keyClick(callees, Qt::Key_Return);
    QCOMPARE(p->current_key().toULongLong(), test::kRelax);
    RankedTable* callers = p->callers()->table();
    QCOMPARE(callers->proxy()->rowCount(), 1);
    callers->setFocus();
    callers->setCurrentIndex(callers->proxy()->index(0, 0));
    QTest::keyClick(callers, Qt::Key_Return);
    QCOMPARE(p->current_key().toULongLong(), test::kSolve);
    // The lock among the callees opens the locks view.
    callees->setFocus();
    callees->setCurrentIndex(callees->proxy()->index(2, 0));
    QCOMPARE(callees->currentIndex().data(KindRole).toUInt(), uint32_t{capture::kMutex});
    QTest::keyClick(callees, Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kLocks);
  }

  // Enter on a finding about a procedure selects it in Procedures; Alt+Left comes back.
  void aFindingOpensItsProcedure() {
    window_->show_view(MainWindow::kFindings);
    FindingsView* findings = window_->findings();
    QVERIFY(findings->summary().contains("about the program"));
    int row = -1;
    uint64_t address = 0;
    for (int r = 0; r < findings->model()->rowCount() && row < 0; ++r) {
      const FindingSubject subject =
          subject_of(run_->view, findings->model()->findings()[size_t(r)]);
      if (subject.kind == FindingSubject::kProcedure) {
        row = r;
        address = subject.key;
      }
    }
    QVERIFY2(row >= 0, qPrintable(test::print(*findings->model())));
    findings->table()->setCurrentIndex(findings->model()->index(row, 0));
    QVERIFY(findings->detail().contains("Advice: "));
    QCOMPARE(window_->details()->histogram()->chart()->title(),
             "Parallelism of " +
                 QString::fromStdString(findings->model()->findings()[size_t(row)].subject));
    QTest::keyClick(findings->table(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kProcedures);
    QCOMPARE(window_->procedures()->current_key().toULongLong(), address);
    QTest::keyClick(window_.get(), Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(window_->current_view(), MainWindow::kFindings);
    QCOMPARE(findings->current_key().toInt(), row);
  }

  // A run of a store is compared with another of its runs, and keeps being compared with
  // it when the store's next run is opened; a run that is no store's says what to do.
  void comparisonComparesWithAnotherRunOfTheStore() {
    ComparisonView* comparison = window_->comparison();
    QVERIFY(comparison->message().contains("quartz import"));
    const QString store = dir_.filePath("compared.db");
    profile::Run run = test::small_run();
    for (int i = 0; i < 3; ++i) {  // started a second apart: captures of their own
      run.info[capture::run_keys::kStartRealtimeNs] = std::to_string(1700000000 + i) + "000000000";
      profile::Store(store.toStdString())
          .add_run(profile::test_support::CaptureFile::of(run).bytes(), run, "x", "");
    }
    QVERIFY(window_->open_run("2", store));
    window_->show_view(MainWindow::kComparison);
    QVERIFY(comparison->message().contains("Compare with"));
    QVERIFY(window_->select_named(MainWindow::kComparison, "1"));
    QVERIFY(comparison->comparison());
    QVERIFY(comparison->message().isEmpty());
    // The same run twice: nothing changed.
    QVERIFY2(comparison->elapsed().endsWith("within noise"), qPrintable(comparison->elapsed()));
    QCOMPARE(comparison->procedure_model()->rowCount(), 0);
    QCOMPARE(comparison->current_key().toLongLong(), 1);
    QVERIFY(window_->open_run("3", store));
    QVERIFY(comparison->comparison());
    QCOMPARE(*comparison->comparison()->b->id, 3);
    QCOMPARE(*comparison->comparison()->a->id, 1);
    QVERIFY(!comparison->compare_with(9));
    QVERIFY(comparison->message().contains("no run 9"));
  }

  // A run in no `quartz scale` series: the Scaling view says how to make one.
  void scalingWithoutASeriesSaysHowToMakeOne() {
    window_->show_view(MainWindow::kScaling);
    QVERIFY(!window_->scaling()->series());
    QVERIFY2(window_->scaling()->message().contains("'quartz scale -- PROGRAM"),
             qPrintable(window_->scaling()->message()));
    QVERIFY(window_->details()->histogram()->chart()->title().contains("program"));
  }

  void aThreadOpensAtItsStartRoutine() {
    window_->show_view(MainWindow::kThreads);
    QVERIFY(window_->threads()->select_key(1u));
    QTest::keyClick(window_->threads()->table(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kHierarchy);
    QCOMPARE(window_->hierarchy()->current_node(), 1);  // main -> worker
    window_->show_view(MainWindow::kThreads);
    QVERIFY(window_->threads()->select_key(0u));
    QTest::keyClick(window_->threads()->table(), Qt::Key_Return);
    QCOMPARE(window_->hierarchy()->current_node(), ContextTreeModel::kProgramNode);
  }

  void shortcutsSwitchViewsAndSearch() {
    QTest::keyClick(window_.get(), Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(window_->current_view(), MainWindow::kLocks);
    QTest::keyClick(window_.get(), Qt::Key_2, Qt::ControlModifier);
    QCOMPARE(window_->current_view(), MainWindow::kProcedures);
    QTest::keyClick(window_.get(), Qt::Key_F, Qt::ControlModifier);
    QLineEdit* search = window_->procedures()->filter_bar()->search_field();
    QCOMPARE(QApplication::focusWidget(), search);
    QTest::keyClicks(search, "relax");
    QTRY_COMPARE(window_->procedures()->table()->proxy()->rowCount(), 1);
    QTest::keyClick(search, Qt::Key_Escape);  // clears, back to the table
    QCOMPARE(window_->procedures()->table()->proxy()->rowCount(), 5);
    QCOMPARE(QApplication::focusWidget(), window_->procedures()->table());
    // The threshold: under 50% of elapsed is hidden.
    window_->procedures()->filter_bar()->minimum_field()->setValue(50);
    QCOMPARE(window_->procedures()->table()->proxy()->rowCount(), 3);  // main, solve, worker
    // Arrow keys move the selection, and the panel follows.
    window_->procedures()->table()->setFocus();
    window_->procedures()->table()->setCurrentIndex(
        window_->procedures()->table()->proxy()->index(0, 0));
    QTest::keyClick(window_->procedures()->table(), Qt::Key_Down);
    QCOMPARE(window_->details()->histogram()->chart()->title(), "Parallelism of solve(Grid&)");
  }

  void treeSearchOpensTheWayToTheHeaviestMatch() {
    HierarchyView* h = window_->hierarchy();
    h->tree()->collapseAll();
    h->focus_search();
    QTest::keyClicks(h->filter_bar()->search_field(), "relax");
    QTRY_COMPARE(h->current_node(), 3);
    QVERIFY(h->tree()->isExpanded(proxy_index(6)));  // the way to the other relax is open too
    QCOMPARE(h->proxy()->rowCount(h->proxy()->index(0, 0)), 1);  // only main under <program>
    // Jumping to a context the search hides clears the search.
    QVERIFY(h->select_node(5));
    QCOMPARE(h->current_node(), 5);
    QVERIFY(h->filter_bar()->search_field()->text().isEmpty());
  }

  void ctrlEExpandsTheHeaviestPath() {
    HierarchyView* h = window_->hierarchy();
    h->tree()->collapseAll();
    QVERIFY(h->select_node(ContextTreeModel::kProgramNode));
    h->tree()->collapseAll();
    QTest::keyClick(window_.get(), Qt::Key_E, Qt::ControlModifier);
    QCOMPARE(h->current_node(), 3);  // program, main, worker, solve, relax
    for (int node : {0, 1, 2}) QVERIFY(h->tree()->isExpanded(proxy_index(node)));
  }

  void exportsTablesAndCharts() {
    window_->show_view(MainWindow::kProcedures);
    window_->procedures()->table()->sortByColumn(ProcedureTableModel::kCalls, Qt::DescendingOrder);
    QString error;
    const QString csv = dir_.filePath("procedures.csv");
    QVERIFY2(window_->export_table(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 6);
    QCOMPARE(lines[0], "Procedure,Normalized,% elapsed,Self,Processor,Calls,Location");
    QVERIFY(lines[1].startsWith("log_message,0.1"));  // in the order shown: by calls
    QVERIFY(!window_->export_table("/nonexistent/dir/x.csv", &error));
    QVERIFY(error.contains("/nonexistent/dir/x.csv"));

    const QString png = dir_.filePath("histogram.png");
    QVERIFY2(window_->export_histogram(png, &error), qPrintable(error));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), window_->details()->histogram()->size());
    QVERIFY(count_color(image, palette::kSelf) > 100);  // the bars are drawn

    const QString svg = dir_.filePath("histogram.svg");
    QVERIFY2(window_->export_histogram(svg, &error), qPrintable(error));
    QFile svg_file(svg);
    QVERIFY(svg_file.open(QIODevice::ReadOnly));
    const QByteArray text = svg_file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains(palette::kSelf.name().toLatin1()));  // bars in the self colour
    QVERIFY(text.contains("Parallelism of main"));
    QVERIFY(!window_->export_histogram("/nonexistent/dir/x.svg", &error));
  }

  void layoutAndRecentFilesAreRemembered() {
    window_->show_view(MainWindow::kLocks);
    window_->procedures()->table()->setColumnWidth(ProcedureTableModel::kCalls, 211);
    window_->procedures()->table()->sortByColumn(ProcedureTableModel::kSelf, Qt::AscendingOrder);
    window_->add_recent(dir_.filePath("a.qcap"));
    window_->close();  // saves
    window_.reset();

    MainWindow again(*settings_);
    QCOMPARE(again.current_view(), MainWindow::kLocks);
    QCOMPARE(again.recent_files(), QStringList{dir_.filePath("a.qcap")});
    again.set_run(run_);
    QCOMPARE(again.procedures()->table()->columnWidth(ProcedureTableModel::kCalls), 211);
    QCOMPARE(again.procedures()->table()->horizontalHeader()->sortIndicatorSection(),
             int(ProcedureTableModel::kSelf));
    QCOMPARE(again.procedures()->table()->proxy()->index(0, 0).data(NumberRole).toString(),
             "worker(void*)");
    // Only the given settings file was used.
    QVERIFY(QFile::exists(dir_.filePath("viewer.ini")));
    QVERIFY(QSettings().allKeys().isEmpty());
  }

  void screenshotWindowsLeaveTheSettingsAlone() {
    window_->close();
    window_.reset();
    const QStringList before = settings_->allKeys();
    settings_->setValue("window/view", int(MainWindow::kThreads));
    MainWindow shot(*settings_, /*remember_layout=*/false);
    QCOMPARE(shot.current_view(), MainWindow::kHierarchy);  // not the remembered view
    shot.show_view(MainWindow::kRun);
    shot.close();
    QCOMPARE(settings_->value("window/view").toInt(), int(MainWindow::kThreads));
  }

  void badFilesGiveAnErrorAndKeepTheRun() {
    QVERIFY(!window_->open_path("/nonexistent/run.qcap"));
    QCOMPARE(window_->last_error(), "/nonexistent/run.qcap: no such file");
    const QString corrupt = dir_.filePath("corrupt.qcap");
    std::vector<unsigned char> bytes =
        profile::test_support::CaptureFile::of(test::small_run()).bytes();
    bytes.resize(bytes.size() / 2);
    std::ofstream(corrupt.toStdString(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    QVERIFY(!window_->open_path(corrupt));
    QVERIFY2(window_->last_error().startsWith(corrupt + ": offset"),
             qPrintable(window_->last_error()));
    QCOMPARE(window_->run(), run_);
  }

  void opensARunOfAStore() {
    const QString store = dir_.filePath("runs.db");
    profile::Run run = test::small_run();
    profile::Store(store.toStdString())
        .add_run(profile::test_support::CaptureFile::of(run).bytes(), run, "x", "");
    QVERIFY(window_->open_run("1", store));
    QCOMPARE(window_->windowTitle(), "run 1 (" + store + ") — quartz-view");
    QCOMPARE(window_->recent_files().first(), store);
    QCOMPARE(window_->procedures()->table()->proxy()->index(0, 0).data(NumberRole).toString(),
             "main");
    QVERIFY(!window_->open_run("7", store));
    QCOMPARE(window_->last_error(), store + ": no run 7");
  }

  void aStoreAsksWhichRun() {
    const QString store = dir_.filePath("two.db");
    profile::Run run = test::small_run();
    const auto bytes = profile::test_support::CaptureFile::of(run).bytes();
    profile::Store(store.toStdString()).add_run(bytes, run, "first", "");
    run.info[capture::run_keys::kElapsedNs] = "900000000";
    profile::Store(store.toStdString())
        .add_run(profile::test_support::CaptureFile::of(run).bytes(), run, "second", "");
    int offered = -1;
    QTimer answer;  // the picker is modal: answer it from its event loop
    connect(&answer, &QTimer::timeout, this, [&] {
      auto* picker = qobject_cast<RunPicker*>(QApplication::activeModalWidget());
      if (!picker) return;
      answer.stop();
      offered = int(picker->chosen().value_or(-1));  // the latest, by default
      QTest::keyClick(picker->table(), Qt::Key_Up);  // run 1
      QTest::keyClick(picker->table(), Qt::Key_Return);
    });
    answer.start(20);
    QVERIFY(window_->open_path(store));
    QCOMPARE(offered, 2);
    QCOMPARE(window_->run()->id, std::optional<int64_t>(1));
    QCOMPARE(window_->run()->view.elapsed_s, 0.861);
  }

  // A team's store holds many runs: the picker narrows them by host or label.
  void thePickerFiltersByHostAndLabel() {
    const QString store = dir_.filePath("team.db");
    profile::Run run = test::small_run();
    for (const char* elapsed : {"800000000", "900000000", "950000000"}) {
      run.info[capture::run_keys::kElapsedNs] = elapsed;
      profile::Store(store.toStdString())
          .add_run(profile::test_support::CaptureFile::of(run).bytes(), run, elapsed, "");
    }
    profile::Store(store.toStdString()).add_labels(1, {{"branch", "main"}, {"ci", "7"}});
    profile::Store(store.toStdString()).add_labels(2, {{"branch", "dev"}});
    std::optional<int64_t> unfiltered, main_branch, nothing;
    int shown = -1;
    QTimer answer;
    connect(&answer, &QTimer::timeout, this, [&] {
      auto* picker = qobject_cast<RunPicker*>(QApplication::activeModalWidget());
      if (!picker) return;
      answer.stop();
      unfiltered = picker->chosen();
      QTest::keyClicks(picker->filter(), "branch=main");
      main_branch = picker->chosen();
      shown = picker->table()->model()->rowCount();
      picker->filter()->setText("elsewhere");
      nothing = picker->chosen();
      picker->filter()->setText("ci=7 branch");
      QTest::keyClick(picker->table(), Qt::Key_Return);
    });
    answer.start(20);
    QVERIFY(window_->open_path(store));
    QCOMPARE(unfiltered, std::optional<int64_t>(3));
    QCOMPARE(main_branch, std::optional<int64_t>(1));
    QCOMPARE(shown, 1);
    QCOMPARE(nothing, std::nullopt);
    QCOMPARE(window_->run()->id, std::optional<int64_t>(1));
  }

  void whatIfsShowTheStoredPredictions() {
    const std::string json = analysis::predictions_json(test::small_predictions());
    window_->set_run(test::with_what_ifs({{"2026-01-01 10:00:00", "--group 0,1|2", json},
                                          {"2026-01-01 11:00:00", "--zero x", "{oops"}}));
    QTest::keyClick(window_.get(), Qt::Key_6, Qt::ControlModifier);
    QCOMPARE(window_->current_view(), MainWindow::kWhatIfs);
    WhatIfView* w = window_->what_ifs();
    QVERIFY(w->message().isEmpty());
    // The newest is shown first: it cannot be read, and says why instead of its figures.
    QCOMPARE(w->current_entry(), 0);
    QVERIFY2(w->entry_message().startsWith("This stored prediction could not be read: stored "
                                           "prediction unreadable"),
             qPrintable(w->entry_message()));
    QVERIFY(w->chart()->bars_s().empty());
    QTest::keyClick(w->entries(), Qt::Key_Down);
    QCOMPARE(w->current_entry(), 1);
    QVERIFY(w->entry_message().isEmpty());
    // The range first, under how many models, then the most likely figure.
    QVERIFY(w->banner().startsWith("Replayed as recorded 800.0-820.0 ms under 2 scheduler models"));
    // The chart: the recorded replay, the critical path, then each answer as asked, each bar
    // to the top of its range, the range from its lowest figure.
    QVERIFY(close(w->chart()->bars_s(), {0.82, 0.7, 0.9, 1.24, 1.32, 0.7, 0.72, 0.8002}));
    QVERIFY(close(w->chart()->range_starts_s(), {0.8, 0.7, 0.84, 1.24, 1.3, 0.68, 0.71, 0.8002}));
    QCOMPARE(w->chart()->labels().first(), "as recorded");
    // Ctrl+C on a grouping copies the option `quartz run` takes; elsewhere it does not.
    QTableView* answers = w->answers();
    answers->setFocus();
    answers->setCurrentIndex(answers->model()->index(0, 0));
    QCOMPARE(w->placement_option(), "--placement \"0,1|2\"");
    QApplication::clipboard()->clear();
    QTest::keyClick(answers, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), "--placement \"0,1|2\"");
    answers->setCurrentIndex(answers->model()->index(3, 0));  // --zero log_message
    QVERIFY(w->placement_option().isEmpty());
    QVERIFY(!w->copy_placement());
    // A procedure on the critical path: the details panel follows, Enter opens it.
    QVERIFY(w->select_on_path("relax(Row&, int)"));
    QCOMPARE(window_->details()->states()->chart()->title(), "States of relax(Row&, int)");
    QTest::keyClick(w->details(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kProcedures);
    QCOMPARE(window_->procedures()->current_key().toULongLong(), test::kRelax);
    QTest::keyClick(window_.get(), Qt::Key_Left, Qt::AltModifier);
    QCOMPARE(window_->current_view(), MainWindow::kWhatIfs);
    // A lock, and a thread by name (it opens at its start routine in the hierarchy).
    QVERIFY(w->select_on_path("queue lock"));
    QTest::keyClick(w->details(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kLocks);
    QCOMPARE(window_->locks()->current_key().toULongLong(), test::kQueueLock);
    window_->show_view(MainWindow::kWhatIfs);
    QVERIFY(w->select_on_path("worker"));
    QTest::keyClick(w->details(), Qt::Key_Return);
    QCOMPARE(window_->current_view(), MainWindow::kHierarchy);
    QCOMPARE(window_->hierarchy()->current_node(), 1);  // main -> worker
    QVERIFY(!w->select_on_path("nobody"));
  }

  void reloadingShowsPredictionsStoredSince() {
    const QString path = dir_.filePath("reload.db");
    profile::Run run = test::small_run();
    profile::Store store(path.toStdString());
    const int64_t id =
        store.add_run(profile::test_support::CaptureFile::of(run).bytes(), run, "x", "");
    QVERIFY(window_->open_run("1", path));
    window_->show_view(MainWindow::kWhatIfs);
    QVERIFY(window_->what_ifs()->message().startsWith("Run 1 has no trace"));
    store.add_prediction(id, "--cores 1", analysis::predictions_json(test::small_predictions()));
    QTest::keyClick(window_.get(), Qt::Key_F5);
    QCOMPARE(window_->current_view(), MainWindow::kWhatIfs);
    QVERIFY(window_->what_ifs()->message().isEmpty());
    QCOMPARE(window_->what_ifs()->list_model()->rowCount(), 1);
    QCOMPARE(window_->what_ifs()->current_entry(), 0);
    // A capture file cannot be reloaded; nothing changes.
    window_->set_run(run_);
    QVERIFY(!window_->reload());
  }

  void whatIfsWithoutPredictionsSayWhatToDo() {
    window_->show_view(MainWindow::kWhatIfs);
    WhatIfView* w = window_->what_ifs();
    QVERIFY(w->message().startsWith("This capture has no trace"));  // the synthetic capture
    QCOMPARE(w->current_entry(), -1);
    window_->set_run(test::with_what_ifs({}));
    QVERIFY(w->message().startsWith("No predictions are stored with run 1 yet"));
    window_->set_run(nullptr);
    QCOMPARE(w->message(), "No run open: File ▸ Open (Ctrl+O).");
  }

  // A load that takes long: a dialog says the step the loader last told while the loader
  // runs on, and what it returns comes back. The loader ends once the dialog was seen (or
  // after 20 s), so the test waits on the window, not on a guessed time.
  void aLongLoadShowsItsStepInADialog() {
    std::atomic<bool> seen{false};
    QString label;
    QTimer look;
    connect(&look, &QTimer::timeout, [&] {
      for (QWidget* w : QApplication::topLevelWidgets()) {
        auto* dialog = qobject_cast<QProgressDialog*>(w);
        if (dialog && dialog->isVisible()) {
          label = dialog->labelText();
          seen = true;
        }
      }
    });
    look.start(20);
    const auto expected = std::make_shared<const RunData>();
    const std::shared_ptr<const RunData> got =
        load_with_progress(nullptr, "Opening big.qcap", [&](const LoadProgress& step) {
          step("reading big.qcap");
          for (int i = 0; i < 2000 && !seen; ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
          }
          return expected;
        });
    QVERIFY(seen);
    QVERIFY2(label.startsWith("reading big.qcap, "), qPrintable(label));
    QCOMPARE(got, expected);
  }

  void aLoadThatFailsThrowsToItsCaller() {
    QVERIFY_THROWS_EXCEPTION(LoadError,
                             load_with_progress(nullptr, "Opening", [](const LoadProgress&) {
                               throw LoadError("bad.qcap: no such file");
                               return std::shared_ptr<const RunData>();
                             }));
  }

  void aTreeOf100000ContextsIsReadLazily() {
    auto big = test::analyzed(test::large_run(100000));
    ContextTreeModel model(big);
    ReadRecorder recorder;
    recorder.setSourceModel(&model);
    ProfileFilterProxy proxy(ContextTreeModel::kName, ContextTreeModel::kNormalized);
    proxy.setSourceModel(&recorder);
    QTreeView view;
    view.setUniformRowHeights(true);
    view.setModel(&proxy);
    view.setSortingEnabled(true);
    view.sortByColumn(ContextTreeModel::kNormalized, Qt::DescendingOrder);
    view.resize(800, 600);
    view.show();
    // Open the first seven levels (about 5,500 rows) and the heaviest path to a leaf, then
    // scroll through all of it.
    std::vector<QModelIndex> level{proxy.index(0, 0)};
    for (int depth = 0; depth < 7; ++depth) {
      std::vector<QModelIndex> next;
      for (const QModelIndex& index : level) {
        view.expand(index);
        for (int row = 0; row < proxy.rowCount(index); ++row)
          next.push_back(proxy.index(row, 0, index));
      }
      level = std::move(next);
    }
    QModelIndex at = proxy.index(0, 0);
    int depth = 0;
    for (; proxy.rowCount(at) > 0; ++depth) {
      view.expand(at);
      at = proxy.index(0, 0, at);
    }
    QVERIFY(depth >= 8);
    QCoreApplication::processEvents();  // the view lays out the expanded rows
    QVERIFY2(view.verticalScrollBar()->maximum() > 1000,
             qPrintable(QString::number(view.verticalScrollBar()->maximum())));
    for (int step = 0; step <= 50; ++step) {
      view.verticalScrollBar()->setValue(view.verticalScrollBar()->maximum() * step / 50);
      view.viewport()->repaint();
    }
    // Only the rows opened (sorted, painted) were read: not the other 94,500 contexts.
    QVERIFY2(recorder.rows_read.size() < 6000,
             qPrintable(QString::number(recorder.rows_read.size())));
    QVERIFY(recorder.rows_read.size() > 5000);
  }

 private:
  QModelIndex proxy_index(int node) const {
    HierarchyView* h = window_->hierarchy();
    return h->proxy()->mapFromSource(h->model()->index_of(node));
  }
  static bool close(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::fabs(a[i] - b[i]) > 1e-12 * std::max(1.0, std::fabs(b[i]))) return false;
    }
    return true;
  }
  static std::vector<double> sum(const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> s(a.size());
    for (size_t i = 0; i < a.size(); ++i) s[i] = a[i] + b[i];
    return s;
  }
  static std::vector<double> states(const analysis::Totals& t) {
    return {t.state_s[capture::kBusy], t.state_s[capture::kSpinning], t.state_s[capture::kBlocked],
            t.state_s[capture::kReady]};
  }

  QTemporaryDir dir_;
  std::shared_ptr<const RunData> run_;
  std::unique_ptr<QSettings> settings_;
  std::unique_ptr<MainWindow> window_;
};

QTEST_MAIN(WidgetTest)
#include "widget_test.moc"
