// The What-ifs models from stored predictions whose numbers are known (synthetic_run.h):
// the list newest first, the answers, the check and critical path, the sentences shown
// when there is nothing to show, and the trace in the run's details.
#include <QTest>

#include "analysis/prediction_json.h"
#include "tests/testing/synthetic_run.h"
#include "tests/viewer/model_text.h"
#include "viewer/models/filter_proxy.h"
#include "viewer/models/roles.h"
#include "viewer/models/run_details_model.h"
#include "viewer/models/what_if_answer_model.h"
#include "viewer/models/what_if_details_model.h"
#include "viewer/models/what_if_list_model.h"
#include "viewer/models/what_if_text.h"

using namespace quartz;
using namespace quartz::viewer;
using test::check_model;
using test::column_text;
using test::print;

class WhatIfModelTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { run_ = test::analyzed(test::small_run()); }

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
    const auto run = test::with_what_ifs({{"2026-01-01 10:00:00", "--group 0,1|2 --cores 1",
                                           analysis::predictions_json(test::small_predictions())},
                                          {"2026-01-01 11:00:00", "--zero x", "[]"}});
    WhatIfListModel model(run);
    check_model(&model);
    QCOMPARE(print(model),
             "2026-01-01 11:00:00 | --zero x | unreadable\n"
             "2026-01-01 10:00:00 | --group 0,1|2 --cores 1 | -11.1%\n");
    QCOMPARE(model.index(1, WhatIfListModel::kCheck).data(NumberRole).toDouble(),
             (0.8 - 0.9) / 0.9);
    QVERIFY(!model.index(0, WhatIfListModel::kCheck).data(NumberRole).isValid());
    QVERIFY(model.index(0, 0)
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith("stored prediction unreadable"));
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
             "--group 0,1|2 | 840.0-900.0 ms | 7.1% | 840.00 ms | +5.0% | solver,worker | "
             "worker | 0,1|2 | \n"
             "--cores 1 #1 | 1.240-1.240 s | 0.0% | 1.240 s | +55.0% | solver,worker,worker | "
             "0,1,2 | all 1 tried\n"
             "--cores 1 shared | 1.300-1.320 s | 1.5% | 1.320 s | +65.0% | all threads sharing "
             "the 1 processor |  | as the OS would schedule them\n"
             "--zero log_message | 680.0-700.0 ms | 2.9% | 680.00 ms | -15.0% | log_message "
             "taking no time |  | \n"
             "--speedup relax(Row&, int)=25 | 710.0-720.0 ms | 1.4% | 720.00 ms | -10.0% | "
             "relax(Row&, int) 25% faster |  | \n"
             "--migrate solve(Grid&) | 800.2-800.2 ms | 0.0% | 800.20 ms | +0.0% | solve(Grid&) "
             "moved to the thread it wakes |  | 12.00 ms of it woke nobody\n");
    // The range first: from its lowest figure, sorted by it; its width against the most
    // likely figure.
    QCOMPARE(model.index(0, WhatIfAnswerModel::kRange).data(NumberRole).toDouble(), 0.84);
    QCOMPARE(model.index(0, WhatIfAnswerModel::kWidth).data(NumberRole).toDouble(),
             (0.9 - 0.84) / 0.84);
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

  // A range too wide to decide names the models at its ends and why they differ, as
  // `quartz predict` does; a narrow one says nothing of them.
  void aWideRangeSaysWhyInItsNote() {
    analysis::Predictions p = test::small_predictions();
    p.models = {{"barging", 0.8}, {"fair", 0.8}};
    p.groupings[0].range = analysis::range_over(std::vector<double>{0.84, 1.2});
    const std::vector<Answer> answers = answers_of(p);
    QCOMPARE(answers[0].note,
             "wide: barging 840.00 ms to fair 1.200 s, which differ in who gets "
             "a free mutex");
    QCOMPARE(answers[3].note, "");  // --zero log_message: 2.9% wide
    // Whole in the row's tooltip, under the answer: the column elides it.
    WhatIfAnswerModel model;
    model.set_predictions(&p);
    QCOMPARE(model.index(0, WhatIfAnswerModel::kNote).data(Qt::ToolTipRole).toString(),
             "solver,worker | worker\nwide: barging 840.00 ms to fair 1.200 s, which differ in "
             "who gets a free mutex");
  }

  // A grouping that splits a task pool says so in its note, with the figure if each of the
  // pool's threads kept its tasks, as `quartz predict` does; a search's listed one too.
  void aSplitPoolSaysSoInItsNote() {
    analysis::Predictions p = test::small_predictions();
    p.groupings[0].split_pools = "worker 1,2";
    p.groupings[0].pinned_s = 1.1;
    p.searches[0].best[0].split_pools = "worker 1,2";
    p.searches[0].best[0].pinned_s = 1.3;
    const std::vector<Answer> answers = answers_of(p);
    QCOMPARE(answers[0].note,
             "worker 1,2 split over processors: replayed with whichever is free taking the next "
             "task (1.100 s if each keeps the tasks it ran)");
    QCOMPARE(answers[1].note,
             "worker 1,2 split over processors: replayed with whichever is free taking the next "
             "task (1.300 s if each keeps the tasks it ran); all 1 tried");
  }

  // A model the recording ruled out is listed as such, and says why in its tooltip.
  void aModelTheRecordingRuledOutSaysSo() {
    analysis::Predictions p = test::small_predictions();
    p.models[1].recorded_s = 1.5;
    p.models[1].contradicted = true;
    WhatIfDetailsModel model;
    model.set_predictions(&p);
    const QString text = print(model);
    QVERIFY2(text.contains("    slices (ruled out by the recording) | 1.500 s | \n"),
             qPrintable(text));
    const QModelIndexList found =
        model.match(model.index(0, 0), Qt::DisplayRole, "slices (ruled out by the recording)", 1,
                    Qt::MatchRecursive | Qt::MatchExactly);
    QCOMPARE(found.size(), 1);
    QCOMPARE(found[0].data(Qt::ToolTipRole).toString(),
             "+66.7% against the recorded time: more than 25% off, so no range counts it");
    QVERIFY2(check_sentence(p).contains("under 1 of 2 scheduler models"),
             qPrintable(check_sentence(p)));
  }

  // A model of the recorded lock order is listed as such, its tooltip saying where it counts.
  void aModelOfTheRecordedOrderSaysWhereItCounts() {
    analysis::Predictions p = test::small_predictions();
    p.models[1].recorded_only = true;
    WhatIfDetailsModel model;
    model.set_predictions(&p);
    const QModelIndexList found =
        model.match(model.index(0, 0), Qt::DisplayRole, "slices (the recorded lock order)", 1,
                    Qt::MatchRecursive | Qt::MatchExactly);
    QCOMPARE(found.size(), 1);
    QVERIFY2(found[0]
                 .data(Qt::ToolTipRole)
                 .toString()
                 .endsWith("so only the recorded configuration's range counts it"),
             qPrintable(found[0].data(Qt::ToolTipRole).toString()));
  }

  void aSearchThatWasNotExhaustiveSaysSo() {
    analysis::Predictions p = test::small_predictions();
    p.searches[0].exhaustive = false;
    p.searches[0].candidates = 12345;
    p.searches[0].rounds = 4;
    p.base_s = 0;  // no reference: no change
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
             "  Scheduler models | 2 | \n"
             "    fair (most likely) | 800.00 ms | \n"
             "    slices | 820.00 ms | \n"
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
    QCOMPARE(model.find_on_path("queue lock").data(KindRole).toInt(),
             int(WhatIfDetailsModel::kLock));
    QCOMPARE(model.find_on_path("solver").data().toString(), "0 solver");
    QVERIFY(!model.find_on_path("Trace").isValid());
    QCOMPARE(model.open_groups().size(), size_t(6));  // all but the trace
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
             "the replay of the recording is 11% short of the recorded time: every prediction "
             "carries an error of that order; the recorded time is 10% above the range its own "
             "configuration replays to: the other ranges can miss by as much; the trace lost 7 "
             "events: the threads that lost "
             "them are replayed without them; the trace ends early (the run did not finish "
             "writing it): the replay stops where it does; 3 waits had no recorded wake-up the "
             "replay could follow and are replayed as the delays they took");
  }

  void whatIfSentences() {
    const analysis::Predictions p = test::small_predictions();
    QCOMPARE(check_sentence(p),
             "Replayed as recorded 800.0-820.0 ms under 2 scheduler models, 800.00 ms under the "
             "most likely; recorded 900.00 ms on 2 processors, outside the range (-11.1% from "
             "the most likely: the model's error on what it saw).");
    QCOMPARE(critical_path_sentence(p),
             "Critical path (every thread on a processor of its own) 700.00 ms, 77.8% of the "
             "recorded elapsed time: 650.00 ms on a processor, 50.00 ms off it (I/O, sleep).");
    // The replay is 11% off what was recorded: said first, as quartz predict says it.
    QCOMPARE(trace_warning(p),
             "the replay of the recording is 11% short of the recorded time: every prediction "
             "carries an error of that order; the recorded time is 10% above the range its own "
             "configuration replays to: the other ranges can miss by as much; 3 waits had no "
             "recorded wake-up the replay could follow and are replayed as the delays they took");
    analysis::Predictions close = p;
    close.recorded_s = 0.85;  // within 10%, inside the range, every wait followed
    close.recorded_range.high_s = 0.9;
    close.quality.forced_waits = close.quality.unpaired_waits = 0;
    QVERIFY(trace_warning(close).isEmpty());
    QCOMPARE(signed_change(1.1, 1.0), "+10.0%");
    QCOMPARE(signed_change(1.0, 0), "-");
    QCOMPARE(signed_change(0.9999, 1.0), "+0.0%");  // not "-0.0%"
    QCOMPARE(signed_change(0.999, 1.0), "-0.1%");
  }

  // One sentence for each reason there is nothing to show, naming the command to run.
  void whatIfsMissingSaysWhatToDo() {
    QCOMPARE(what_ifs_missing(nullptr), "No run open: File ▸ Open (Ctrl+O).");
    // A capture file: untraced, then traced.
    QVERIFY(what_ifs_missing(run_.get())
                .startsWith("This capture has no trace: record the "
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

 private:
  std::shared_ptr<const RunData> run_;
};

QTEST_GUILESS_MAIN(WhatIfModelTest)
#include "what_if_model_test.moc"
