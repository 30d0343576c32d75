// The viewer shows the numbers `quartz report --json` prints, for the same run: every
// row of every model (NumberRole), and the bars of every chart, against the JSON of the
// real `quartz` command. Runs: a synthetic run in a store (with symbols), the same run as
// a bare capture file (names are addresses), and a real capture of the lock_contention
// sample.
#include <sched.h>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>

#include "analysis/scaling_report.h"
#include "profile/store.h"
#include "tests/testing/capture_file_fixture.h"
#include "tests/testing/synthetic_run.h"
#include "tests/viewer/model_text.h"
#include "viewer/charts/comparison_chart.h"
#include "viewer/charts/histogram_chart.h"
#include "viewer/charts/runnable_chart.h"
#include "viewer/charts/scaling_charts.h"
#include "viewer/charts/state_chart.h"
#include "viewer/loading/run_comparison.h"
#include "viewer/loading/series_data.h"
#include "viewer/models/call_graph_model.h"
#include "viewer/models/change_table_model.h"
#include "viewer/models/comparison_text.h"
#include "viewer/models/context_tree_model.h"
#include "viewer/models/finding_table_model.h"
#include "viewer/models/lock_table_model.h"
#include "viewer/models/procedure_table_model.h"
#include "viewer/models/region_scaling_model.h"
#include "viewer/models/roles.h"
#include "viewer/models/run_details_model.h"
#include "viewer/models/scale_point_model.h"
#include "viewer/models/thread_table_model.h"
#include "viewer/models/what_if_answer_model.h"
#include "viewer/models/what_if_details_model.h"
#include "viewer/models/what_if_list_model.h"
#include "viewer/widgets/detail_panel.h"

using namespace quartz;
using namespace quartz::viewer;

namespace {

const char* const kStates[] = {"busy", "spinning", "blocked", "ready"};

QVariant number(const QAbstractItemModel& model, int row, int column) {
  return model.index(row, column).data(NumberRole);
}

// Charts hold values in a display unit (ms, µs): equal to the JSON within rounding.
bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-12 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

std::vector<double> doubles(const QJsonValue& value) {
  std::vector<double> out;
  for (const QJsonValue& v : value.toArray()) out.push_back(v.toDouble());
  return out;
}

}  // namespace

class ReportEqualityTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    // The synthetic run, stored with its symbols, and as a bare capture.
    profile::Run run = test::small_run();
    const std::vector<unsigned char> bytes = profile::test_support::CaptureFile::of(run).bytes();
    store_ = dir_.filePath("runs.db");
    profile::Store(store_.toStdString()).add_run(bytes, run, "synthetic.qcap", "");
    capture_ = dir_.filePath("synthetic.qcap");
    std::ofstream(capture_.toStdString(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    // A real run of a sample, written without importing it, with an unprofiled run to
    // compare it with (--baseline).
    real_ = dir_.filePath("lock_contention.qcap");
    QProcess quartz;
    quartz.start(QUARTZ_BIN_DIR "/quartz", {"run", "-q", "--baseline", "--no-import", "-o", real_,
                                            "--", QUARTZ_SAMPLES_DIR "/lock_contention"});
    QVERIFY(quartz.waitForFinished(120000));
    QVERIFY2(quartz.exitCode() == 0, quartz.readAllStandardError().constData());
  }

  // Every figure of every stored prediction, as the What-ifs view's models give it, equals
  // the "what_ifs" array of `quartz report --json` (oldest first there, newest first here).
  void whatIfsEqualReport() {
    const QString store = dir_.filePath("traced.db");
    QVERIFY(
        run_quartz({"run", "-q", "--trace", "--store", store, "--", QUARTZ_SAMPLES_DIR "/pairs"}));
    QVERIFY(run_quartz({"predict", "--store", store, "1", "--group", "0|1,2|3,4", "--cores", "1",
                        "--zero", "ping_work", "--speedup", "pong_work=50", "--migrate",
                        "pass_token"}));
    QVERIFY(run_quartz({"predict", "--store", store, "1"}));  // the check and path only
    const QJsonObject json = report_json(store, "1");
    const QJsonArray stored = json["what_ifs"].toArray();
    QCOMPARE(stored.size(), 2);
    const std::shared_ptr<const RunData> run = load_run("1", store.toStdString());
    QVERIFY(run->has_trace);
    QCOMPARE(int(run->what_ifs.size()), stored.size());
    WhatIfListModel list(run);
    for (int i = 0; i < stored.size(); ++i) {
      const QJsonObject entry = stored[stored.size() - 1 - i].toObject();
      const QJsonObject p = entry["predictions"].toObject();
      QCOMPARE(list.index(i, WhatIfListModel::kMade).data().toString(), entry["made"].toString());
      QCOMPARE(list.index(i, WhatIfListModel::kQuestion).data().toString(),
               entry["question"].toString());
      const double observed = p["observed_s"].toDouble(), recorded = p["recorded_s"].toDouble();
      QCOMPARE(list.index(i, WhatIfListModel::kCheck).data(NumberRole).toDouble(),
               (recorded - observed) / observed);
      QVERIFY(run->what_ifs[size_t(i)].predictions);
      compare_answers(*run->what_ifs[size_t(i)].predictions, p);
      compare_what_if_details(*run->what_ifs[size_t(i)].predictions, p);
    }
  }

  // The Findings view's rows are `quartz diagnose --json`'s findings, in its order (the
  // program's by severity, then the measurement's), for a real run of a sample.
  void findingsEqualDiagnose() {
    QProcess diagnose;
    diagnose.start(QUARTZ_BIN_DIR "/quartz", {"diagnose", "--json", "--store", store_, real_});
    QVERIFY(diagnose.waitForFinished(60000));
    QVERIFY2(diagnose.exitCode() == 0, diagnose.readAllStandardError().constData());
    const QJsonArray findings =
        QJsonDocument::fromJson(diagnose.readAllStandardOutput()).object()["findings"].toArray();
    QVERIFY(!findings.isEmpty());  // lock_contention's contention, at least
    FindingTableModel model(load_run(real_.toStdString(), store_.toStdString()));
    test::check_model(&model);
    QCOMPARE(model.rowCount(), findings.size());
    for (int row = 0; row < findings.size(); ++row) {
      const QJsonObject f = findings[row].toObject();
      auto cell = [&](int column) { return number(model, row, column); };
      QCOMPARE(cell(FindingTableModel::kFinding).toString(), f["property"].toString());
      QCOMPARE(cell(FindingTableModel::kSubject).toString(), f["subject"].toString());
      QCOMPARE(cell(FindingTableModel::kSeverity).toDouble(), f["severity"].toDouble());
      QCOMPARE(cell(FindingTableModel::kConfidence).toDouble(), f["confidence"].toDouble());
      QCOMPARE(cell(FindingTableModel::kEvidence).toString(), f["evidence"].toString());
      QCOMPARE(cell(FindingTableModel::kAdvice).toString(), f["advice"].toString());
      QCOMPARE(cell(FindingTableModel::kLocation).toString(), f["location"].toString());
      QCOMPARE(analysis::about_measurement(model.findings()[size_t(row)].property),
               f["about"].toString() == "measurement");
    }
  }

  // The Comparison view's figures are `quartz compare --json`'s for two real runs of a
  // sample, the second with a shorter critical section.
  void comparisonEqualsCompare() {
    const QString store = dir_.filePath("compared.db");
    const QString sample = QUARTZ_SAMPLES_DIR "/lock_contention";
    QVERIFY(run_quartz({"run", "-q", "--store", store, "--", sample}));
    QVERIFY(run_quartz({"run", "-q", "--store", store, "--", sample, "--hold-us", "50"}));
    QProcess compare;
    compare.start(QUARTZ_BIN_DIR "/quartz", {"compare", "--json", "--store", store, "1", "2"});
    QVERIFY(compare.waitForFinished(60000));
    QVERIFY2(compare.exitCode() == 0, compare.readAllStandardError().constData());
    const QJsonObject json = QJsonDocument::fromJson(compare.readAllStandardOutput()).object();
    const RunComparison shown =
        compare_runs(load_run("1", store.toStdString()), load_run("2", store.toStdString()));
    const analysis::Comparison& c = shown.comparison;
    QCOMPARE(qint64(c.runs_a), json["runs_a"].toInteger());
    QCOMPARE(qint64(c.runs_b), json["runs_b"].toInteger());
    QCOMPARE(c.run_to_run, json["noise_includes_run_to_run"].toBool());
    const QJsonObject elapsed = json["elapsed"].toObject();
    QCOMPARE(c.elapsed.a_s, elapsed["a_s"].toDouble());
    QCOMPARE(c.elapsed.b_s, elapsed["b_s"].toDouble());
    QCOMPARE(c.elapsed.noise_s, elapsed["noise_s"].toDouble());
    QVERIFY(elapsed_sentence(c).endsWith(elapsed["beyond_noise"].toBool() ? "beyond noise"
                                                                          : "within noise"));
    QVERIFY(noise_sentence(c).contains("sampling only"));
    const std::pair<const std::vector<analysis::Change>*, const char*> sides[] = {
        {&c.procedures, "procedures"}, {&c.locks, "locks"}};
    for (const auto& [changes, key] : sides) {
      ChangeTableModel model(*changes);
      test::check_model(&model);
      const QJsonArray rows = json[key].toArray();
      QCOMPARE(model.rowCount(), rows.size());
      for (int row = 0; row < rows.size(); ++row) {
        const QJsonObject r = rows[row].toObject();
        auto cell = [&](int column) { return number(model, row, column); };
        QCOMPARE(cell(ChangeTableModel::kName).toString(), r["name"].toString());
        QCOMPARE(cell(ChangeTableModel::kLocation).toString(), r["location"].toString());
        QCOMPARE(cell(ChangeTableModel::kA).toDouble(), r["a_s"].toDouble());
        QCOMPARE(cell(ChangeTableModel::kB).toDouble(), r["b_s"].toDouble());
        QCOMPARE(cell(ChangeTableModel::kNoise).toDouble(), r["noise_s"].toDouble());
        const double a = r["a_s"].toDouble(), b = r["b_s"].toDouble();
        if (a > 0) QCOMPARE(cell(ChangeTableModel::kChange).toDouble(), (b - a) / a);
      }
    }
    QVERIFY(!json["procedures"].toArray().isEmpty());  // the critical section's procedure
    // The chart's bars: the procedures' changes, then the locks'.
    ComparisonChart chart;
    chart.show_changes(c);
    QJsonArray bars = json["procedures"].toArray();
    for (const QJsonValue& lock : json["locks"].toArray()) bars.append(lock);
    const size_t drawn = std::min(size_t(bars.size()), ComparisonChart::kMaxBars);
    QCOMPARE(size_t(chart.names().size()), drawn);
    for (size_t k = 0; k < drawn; ++k) {
      const QJsonObject bar = bars.at(int(k)).toObject();
      QCOMPARE(chart.names()[int(k)], bar["name"].toString());
      QVERIFY(close(chart.a_s()[k], bar["a_s"].toDouble()));
      QVERIFY(close(chart.b_s()[k], bar["b_s"].toDouble()));
    }
    const std::pair<const std::vector<analysis::Finding>*, const char*> findings[] = {
        {&c.appeared, "appeared"}, {&c.went_away, "went_away"}};
    for (const auto& [list, key] : findings) {
      FindingTableModel model(*list);
      const QJsonArray rows = json[key].toArray();
      QCOMPARE(model.rowCount(), rows.size());
      for (int row = 0; row < rows.size(); ++row) {
        QCOMPARE(number(model, row, FindingTableModel::kFinding).toString(),
                 rows[row]["property"].toString());
        QCOMPARE(number(model, row, FindingTableModel::kSubject).toString(),
                 rows[row]["subject"].toString());
        QCOMPARE(number(model, row, FindingTableModel::kSeverity).toDouble(),
                 rows[row]["severity"].toDouble());
      }
    }
  }

  // The Scaling view's points, regions and charts are `quartz scale --series RUN --json`'s
  // for a series of the imbalance sample on 1 and 2 processors.
  void scalingEqualsScale() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2)
      QSKIP("fewer than 2 processors allowed: no series can be made");
    const QString store = dir_.filePath("series.db");
    QVERIFY(run_quartz({"scale", "--store", store, "--processors", "1,2", "--",
                        QUARTZ_SAMPLES_DIR "/imbalance", "--threads", "2", "--unit-ms", "30"}));
    QProcess scale;
    scale.start(QUARTZ_BIN_DIR "/quartz", {"scale", "--store", store, "--series", "2", "--json"});
    QVERIFY(scale.waitForFinished(60000));
    QVERIFY2(scale.exitCode() == 0, scale.readAllStandardError().constData());
    const QJsonObject json = QJsonDocument::fromJson(scale.readAllStandardOutput()).object();
    QVERIFY(!load_series(*load_run(capture_.toStdString(), store_.toStdString())));
    QVERIFY(!load_series(*load_run("1", store_.toStdString())));  // a run in no series
    const std::optional<SeriesData> loaded = load_series(*load_run("2", store.toStdString()));
    QVERIFY(loaded);
    const auto series = std::make_shared<const SeriesData>(*loaded);
    QCOMPARE(series->runs, (std::vector<int64_t>{1, 2}));
    QCOMPARE(qint64(series->available), json["available_processors"].toInteger());
    QStringList notes;
    for (const std::string& note : analysis::scaling_notes(series->scaling, series->available))
      notes << QString::fromStdString(note);
    QStringList json_notes;
    for (const QJsonValue& note : json["notes"].toArray()) json_notes << note.toString();
    QCOMPARE(notes, json_notes);

    ScalePointModel points(series);
    test::check_model(&points);
    const QJsonArray json_points = json["points"].toArray();
    QCOMPARE(points.rowCount(), 2);
    QCOMPARE(points.rowCount(), json_points.size());
    SpeedupChart speedup;
    speedup.show_series(series->scaling);
    const auto lines = speedup.lines();
    QCOMPARE(lines.size(), size_t(2));
    for (int row = 0; row < json_points.size(); ++row) {
      const QJsonObject p = json_points[row].toObject();
      auto cell = [&](int column) { return number(points, row, column); };
      QCOMPARE(cell(ScalePointModel::kProcessors).toLongLong(), p["processors"].toInteger());
      QCOMPARE(cell(ScalePointModel::kRuns).toLongLong(), p["runs"].toInteger());
      QCOMPARE(cell(ScalePointModel::kElapsed).toDouble(), p["elapsed_s"].toDouble());
      QCOMPARE(cell(ScalePointModel::kFastest).toDouble(), p["min_s"].toDouble());
      QCOMPARE(cell(ScalePointModel::kSlowest).toDouble(), p["max_s"].toDouble());
      QCOMPARE(cell(ScalePointModel::kSpeedup).toDouble(), p["speedup"].toDouble());
      QCOMPARE(cell(ScalePointModel::kEfficiency).toDouble(), p["efficiency"].toDouble());
      QCOMPARE(cell(ScalePointModel::kIdeal).toDouble(),
               p["processors"].toDouble() / json_points[0]["processors"].toDouble());
      QCOMPARE(lines[0][size_t(row)], QPointF(p["processors"].toDouble(), p["speedup"].toDouble()));
      QCOMPARE(lines[1][size_t(row)].y(), cell(ScalePointModel::kIdeal).toDouble());
    }

    RegionScalingModel regions(series);
    test::check_model(&regions);
    const QJsonArray json_regions = json["regions"].toArray();
    QVERIFY(!json_regions.isEmpty());
    QCOMPARE(regions.rowCount(), json_regions.size());
    QCOMPARE(regions.columnCount(), RegionScalingModel::kFirstEfficiency + 2 + 1);
    for (int row = 0; row < json_regions.size(); ++row) {
      const QJsonObject r = json_regions[row].toObject();
      auto cell = [&](int column) { return number(regions, row, column); };
      QCOMPARE(cell(RegionScalingModel::kKind).toString(), r["kind"].toString());
      QCOMPARE(cell(RegionScalingModel::kName).toString(), r["name"].toString());
      QCOMPARE(cell(regions.location_column()).toString(), r["location"].toString());
      QCOMPARE(cell(RegionScalingModel::kLost).toDouble(), doubles(r["lost_s"]).back());
      QVERIFY(!cell(RegionScalingModel::kNonScalability).isValid());  // two points: unknown
      QVERIFY(json["non_scalability"].isNull());
      const std::vector<double> efficiency = doubles(r["efficiency"]);
      for (size_t i = 0; i < efficiency.size(); ++i)
        QCOMPARE(cell(RegionScalingModel::kFirstEfficiency + int(i)).toDouble(), efficiency[i]);
    }
    // The chart's lines: the first regions' normalized times, or their capacity lost.
    RegionScalingChart chart;
    for (const bool lost : {false, true}) {
      chart.show_series(series->scaling, lost);
      const auto region_lines = chart.lines_s();
      QCOMPARE(region_lines.size(),
               std::min(size_t(json_regions.size()), RegionScalingChart::kMaxRegions));
      for (size_t r = 0; r < region_lines.size(); ++r) {
        QCOMPARE(chart.names()[int(r)], json_regions[int(r)]["name"].toString());
        const std::vector<double> values =
            doubles(json_regions[int(r)][lost ? "lost_s" : "time_s"]);
        for (size_t i = 0; i < values.size(); ++i)
          QVERIFY(close(region_lines[r][i].y(), values[i]));
      }
    }
  }

  void viewerEqualsReport_data() {
    QTest::addColumn<QString>("which");
    QTest::addColumn<QString>("store");
    QTest::newRow("store run") << "1" << store_;
    QTest::newRow("capture file") << capture_ << store_;
    QTest::newRow("real capture") << real_ << store_;
  }

  void viewerEqualsReport() {
    QFETCH(QString, which);
    QFETCH(QString, store);
    QProcess report;
    report.start(QUARTZ_BIN_DIR "/quartz", {"report", "--json", "--store", store, which});
    QVERIFY(report.waitForFinished(60000));
    QVERIFY2(report.exitCode() == 0, report.readAllStandardError().constData());
    QJsonParseError error;
    const QJsonObject json =
        QJsonDocument::fromJson(report.readAllStandardOutput(), &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const std::shared_ptr<const RunData> run = load_run(which.toStdString(), store.toStdString());
    elapsed_ = json["elapsed_s"].toDouble();
    QCOMPARE(run->view.elapsed_s, elapsed_);
    if (which == real_) QVERIFY2(!json["baseline"].isNull(), "the real run has its --baseline");

    compare_tree(run, json);
    compare_procedures(run, json);
    compare_call_graph(run, json);
    compare_locks(run, json);
    compare_threads(run, json);
    compare_run_details(run, json);
    compare_charts(run, json);
  }

 private:
  static bool run_quartz(const QStringList& args) {
    QProcess quartz;
    quartz.start(QUARTZ_BIN_DIR "/quartz", args);
    if (!quartz.waitForFinished(120000) || quartz.exitCode() != 0) {
      qWarning("%s", quartz.readAllStandardError().constData());
      return false;
    }
    return true;
  }

  static QJsonObject report_json(const QString& store, const QString& which) {
    QProcess report;
    report.start(QUARTZ_BIN_DIR "/quartz", {"report", "--json", "--store", store, which});
    report.waitForFinished(60000);
    return QJsonDocument::fromJson(report.readAllStandardOutput()).object();
  }

  // The answers in the order the report gives them: groupings, each search's best and its
  // shared processors, then the procedure changes.
  void compare_answers(const analysis::Predictions& predictions, const QJsonObject& p) {
    WhatIfAnswerModel model;
    model.set_predictions(&predictions);
    std::vector<double> expected;
    std::vector<QJsonObject> ranges;  // low_s, width
    QStringList placements;
    for (const QJsonValue& g : p["groupings"].toArray()) {
      expected.push_back(g["predicted_s"].toDouble());
      ranges.push_back(g.toObject());
      placements << g["spec"].toString();
    }
    for (const QJsonValue& search : p["searches"].toArray()) {
      for (const QJsonValue& g : search["best"].toArray()) {
        expected.push_back(g["predicted_s"].toDouble());
        ranges.push_back(g.toObject());
        placements << g["spec"].toString();
      }
      expected.push_back(search["shared_s"].toDouble());
      ranges.push_back(search["shared_range"].toObject());
      placements << "";
    }
    for (const QJsonValue& c : p["procedures"].toArray()) {
      expected.push_back(c["predicted_s"].toDouble());
      ranges.push_back(c.toObject());
      placements << "";
    }
    QCOMPARE(model.rowCount(), int(expected.size()));
    const double base = p["base_s"].toDouble();  // what the changes are against
    for (int row = 0; row < model.rowCount(); ++row) {
      auto column = [&](int c) { return model.index(row, c); };
      QCOMPARE(column(WhatIfAnswerModel::kPredicted).data(NumberRole).toDouble(),
               expected[size_t(row)]);
      QCOMPARE(column(WhatIfAnswerModel::kRange).data(NumberRole).toDouble(),
               ranges[size_t(row)]["low_s"].toDouble());
      QCOMPARE(column(WhatIfAnswerModel::kWidth).data(NumberRole).toDouble(),
               ranges[size_t(row)]["width"].toDouble());
      QCOMPARE(column(WhatIfAnswerModel::kChange).data(NumberRole).toDouble(),
               (expected[size_t(row)] - base) / base);
      QCOMPARE(column(WhatIfAnswerModel::kPlacement).data().toString(), placements[row]);
    }
  }

  void compare_what_if_details(const analysis::Predictions& predictions, const QJsonObject& p) {
    WhatIfDetailsModel model;
    model.set_predictions(&predictions);
    auto value = [&](const char* group, const QString& name) {
      return model.find(group, name).siblingAtColumn(WhatIfDetailsModel::kValue).data(NumberRole);
    };
    QCOMPARE(value("Model check", "Recorded elapsed time").toDouble(), p["observed_s"].toDouble());
    QCOMPARE(value("Model check", "Replayed as recorded").toDouble(), p["recorded_s"].toDouble());
    QCOMPARE(value("Model check", "Processors").toInt(), p["processors"].toInt());
    const QJsonObject path = p["critical_path"].toObject();
    QCOMPARE(value("", "Critical path").toDouble(), path["length_s"].toDouble());
    QCOMPARE(model.find("", "Critical path")
                 .siblingAtColumn(WhatIfDetailsModel::kShare)
                 .data(NumberRole)
                 .toDouble(),
             path["share"].toDouble());
    QCOMPARE(value("Critical path", "On a processor").toDouble(), path["cpu_s"].toDouble());
    QCOMPARE(value("Critical path", "Off the processor (I/O, sleep)").toDouble(),
             path["delay_s"].toDouble());
    const std::pair<const char*, const char*> lists[] = {
        {"threads", "Threads"}, {"procedures", "Procedures"}, {"locks", "Locks held"}};
    for (const auto& [key, title] : lists) {
      const QJsonArray entries = path[key].toArray();
      QVERIFY(!entries.isEmpty());
      for (const QJsonValue& e : entries)
        QCOMPARE(value(title, e["name"].toString()).toDouble(), e["s"].toDouble());
    }
    const QJsonObject trace = p["trace"].toObject();
    QCOMPARE(value("", "Trace").toULongLong(), qulonglong(trace["events"].toInteger()));
    QCOMPARE(value("Trace", "Samples").toULongLong(), qulonglong(trace["samples"].toInteger()));
    QCOMPARE(value("Trace", "Events dropped").toULongLong(), 0ull);
  }

  void compare_tree(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    const RunData& run = *shared;
    ContextTreeModel model(shared);
    const QJsonArray contexts = json["contexts"].toArray();
    QCOMPARE(int(run.view.contexts.size()), contexts.size());
    const QModelIndex root = model.index(0, 0);
    const QJsonObject program = json["program_totals"].toObject();
    QCOMPARE(root.siblingAtColumn(ContextTreeModel::kNormalized).data(NumberRole).toDouble(),
             program["normalized_s"].toDouble());
    QCOMPARE(root.siblingAtColumn(ContextTreeModel::kProcessor).data(NumberRole).toDouble(),
             program["processor_s"].toDouble());
    int top = 0;
    for (const QJsonValue& value : contexts) {
      const QJsonObject c = value.toObject();
      const int id = c["id"].toInt();
      const QModelIndex index = model.index_of(id);
      QVERIFY(index.isValid());
      auto column = [&](int col) { return index.siblingAtColumn(col).data(NumberRole); };
      QCOMPARE(column(ContextTreeModel::kName).toString(), c["name"].toString());
      QCOMPARE(column(ContextTreeModel::kNormalized).toDouble(), c["normalized_s"].toDouble());
      QCOMPARE(column(ContextTreeModel::kSelf).toDouble(), c["normalized_self_s"].toDouble());
      QCOMPARE(column(ContextTreeModel::kProcessor).toDouble(), c["processor_s"].toDouble());
      QCOMPARE(column(ContextTreeModel::kShare).toDouble(),
               c["normalized_s"].toDouble() / elapsed_);
      if (c["kind"].toString() == "procedure") {
        QCOMPARE(column(ContextTreeModel::kCalls).toULongLong(),
                 qulonglong(c["calls"].toInteger()));
      } else {
        QVERIFY(!column(ContextTreeModel::kCalls).isValid());
      }
      // The tree's shape is the report's: the parent row is the parent context.
      const QModelIndex parent = model.parent(index);
      if (c["parent"].isNull()) {
        QCOMPARE(parent, root);
        ++top;
      } else {
        QCOMPARE(model.node(parent), c["parent"].toInt());
      }
    }
    QCOMPARE(model.rowCount(root), top);
  }

  void compare_procedures(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    ProcedureTableModel model(shared);
    const QJsonArray procedures = json["procedures"].toArray();
    QCOMPARE(model.rowCount(), procedures.size());
    for (int row = 0; row < procedures.size(); ++row) {
      const QJsonObject p = procedures[row].toObject();
      QCOMPARE(number(model, row, ProcedureTableModel::kName).toString(), p["name"].toString());
      QCOMPARE(number(model, row, ProcedureTableModel::kNormalized).toDouble(),
               p["normalized_s"].toDouble());
      QCOMPARE(number(model, row, ProcedureTableModel::kShare).toDouble(),
               p["normalized_s"].toDouble() / elapsed_);
      QCOMPARE(number(model, row, ProcedureTableModel::kSelf).toDouble(),
               p["normalized_self_s"].toDouble());
      QCOMPARE(number(model, row, ProcedureTableModel::kProcessor).toDouble(),
               p["processor_s"].toDouble());
      QCOMPARE(number(model, row, ProcedureTableModel::kCalls).toULongLong(),
               qulonglong(p["calls"].toInteger()));
      QCOMPARE(number(model, row, ProcedureTableModel::kLocation).toString(),
               p["location"].toString());
    }
  }

  void compare_call_graph(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    const RunData& run = *shared;
    CallGraphModel callees(shared, CallGraphModel::kCallees);
    const QJsonArray procedures = json["procedures"].toArray();
    for (int i = 0; i < procedures.size(); ++i) {
      const QJsonArray children = procedures[i]["children"].toArray();
      callees.show(run.view.procedures[size_t(i)].address, false);
      QCOMPARE(callees.rowCount(), children.size());
      for (int row = 0; row < children.size(); ++row) {
        const QJsonObject c = children[row].toObject();
        QCOMPARE(number(callees, row, CallGraphModel::kName).toString(), c["name"].toString());
        QCOMPARE(number(callees, row, CallGraphModel::kNormalized).toDouble(),
                 c["normalized_s"].toDouble());
        QCOMPARE(number(callees, row, CallGraphModel::kShare).toDouble(), c["share"].toDouble());
        QCOMPARE(number(callees, row, CallGraphModel::kCalls).toULongLong(),
                 qulonglong(c["calls"].toInteger()));
      }
    }
  }

  void compare_locks(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    LockTableModel model(shared);
    const QJsonArray locks = json["locks"].toArray();
    QCOMPARE(model.rowCount(), locks.size());
    for (int row = 0; row < locks.size(); ++row) {
      const QJsonObject l = locks[row].toObject();
      QCOMPARE(number(model, row, LockTableModel::kName).toString(), l["name"].toString());
      QVERIFY(model.index(row, LockTableModel::kName)
                  .data()
                  .toString()
                  .endsWith("(" + l["kind"].toString() + ")"));
      QCOMPARE(number(model, row, LockTableModel::kNormalized).toDouble(),
               l["normalized_s"].toDouble());
      QCOMPARE(number(model, row, LockTableModel::kWait).toDouble(), l["wait_s"].toDouble());
      QCOMPARE(number(model, row, LockTableModel::kHold).toDouble(), l["hold_s"].toDouble());
      QCOMPARE(number(model, row, LockTableModel::kAcquisitions).toULongLong(),
               qulonglong(l["acquisitions"].toInteger()));
      QCOMPARE(number(model, row, LockTableModel::kContended).toULongLong(),
               qulonglong(l["contended"].toInteger()));
      QCOMPARE(number(model, row, LockTableModel::kMeanWait).toDouble(),
               l["mean_wait_s"].toDouble());
      QCOMPARE(number(model, row, LockTableModel::kMeanQueue).toDouble(),
               l["mean_queue"].toDouble());
    }
  }

  void compare_threads(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    ThreadTableModel model(shared);
    const QJsonArray threads = json["threads"].toArray();
    QCOMPARE(model.rowCount(), threads.size());
    for (int row = 0; row < threads.size(); ++row) {
      const QJsonObject t = threads[row].toObject();
      QCOMPARE(number(model, row, ThreadTableModel::kIndex).toInt(), t["index"].toInt());
      QCOMPARE(number(model, row, ThreadTableModel::kName).toString(), t["name"].toString());
      QCOMPARE(number(model, row, ThreadTableModel::kParent).isValid(), !t["parent"].isNull());
      if (!t["parent"].isNull())
        QCOMPARE(number(model, row, ThreadTableModel::kParent).toInt(), t["parent"].toInt());
      QCOMPARE(number(model, row, ThreadTableModel::kNormalized).toDouble(),
               t["normalized_s"].toDouble());
      QCOMPARE(number(model, row, ThreadTableModel::kBusy).toDouble(), t["busy_s"].toDouble());
      QCOMPARE(number(model, row, ThreadTableModel::kSpinning).toDouble(), t["spin_s"].toDouble());
      QCOMPARE(number(model, row, ThreadTableModel::kBlocked).toDouble(),
               t["blocked_s"].toDouble());
      QCOMPARE(number(model, row, ThreadTableModel::kReady).toDouble(), t["ready_s"].toDouble());
      QCOMPARE(number(model, row, ThreadTableModel::kCpu).toDouble(), t["cpu_s"].toDouble());
      QCOMPARE(number(model, row, ThreadTableModel::kCalls).toULongLong(),
               qulonglong(t["calls"].toInteger()));
    }
  }

  void compare_run_details(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    RunDetailsModel model(shared);
    auto value = [&](const char* property) {
      const int row = model.row_of(property);
      return row < 0 ? QVariant() : number(model, row, RunDetailsModel::kValue);
    };
    const QJsonObject sampling = json["sampling"].toObject();
    QCOMPARE(value("Processors (P)").toInt(), json["processors"].toInt());
    QCOMPARE(value("Elapsed").toDouble(), elapsed_);
    QCOMPARE(value("Samples").toULongLong(), qulonglong(sampling["samples"].toInteger()));
    QCOMPARE(value("Thread samples").toULongLong(),
             qulonglong(sampling["thread_samples"].toInteger()));
    QCOMPARE(value("Period").toDouble(), sampling["period_s"].toDouble());
    QCOMPARE(value("Torn rate").toDouble(), sampling["torn_rate"].toDouble());
    QCOMPARE(value("Dilation removed").toDouble(), sampling["dilation_removed_s"].toDouble());
    QCOMPARE(value("Cost per call").toDouble(), sampling["hook_pair_ns"].toDouble());
    QCOMPARE(value("Overhead budget").toInt(), sampling["budget_percent"].toInt());
    QCOMPARE(value("Sampler CPU").toDouble(), sampling["sampler_cpu_s"].toDouble());
    QCOMPARE(value("Stack overflows").toULongLong(),
             qulonglong(sampling["stack_overflows"].toInteger()));
    QCOMPARE(value("Ended normally").toBool(), json["final"].toBool());
    const QJsonValue baseline = json["baseline"];
    QCOMPARE(value("Unprofiled elapsed").isValid(), !baseline.isNull());
    if (!baseline.isNull()) {
      const QJsonObject b = baseline.toObject();
      QCOMPARE(value("Unprofiled elapsed").toDouble(), b["elapsed_s"].toDouble());
      QCOMPARE(value("Unprofiled processor time").toDouble(), b["cpu_s"].toDouble());
      QCOMPARE(value("Dilation").toDouble(),
               b["profiled_elapsed_s"].toDouble() / b["elapsed_s"].toDouble());
    }
    QStringList arguments;
    for (const QJsonValue& a : json["arguments"].toArray()) arguments << a.toString();
    QCOMPARE(value("Command").toString(),
             arguments.isEmpty() ? json["program"].toString() : arguments.join(' '));
  }

  // The detail panel's charts for the program and every procedure, lock and thread.
  void compare_charts(const std::shared_ptr<const RunData>& shared, const QJsonObject& json) {
    const RunData& run = *shared;
    DetailPanel panel;
    panel.set_processors(run.view.processors);
    auto check = [&](const Selection& selection, const QJsonObject& record, bool split) {
      panel.show_selection(selection);
      const auto parts = panel.histogram()->bar_parts_s();
      const std::vector<double> total = doubles(record["histogram_s"]);
      QCOMPARE(parts.size(), size_t(split ? 2 : 1));
      QCOMPARE(parts[0].size(), total.size());
      for (size_t bin = 0; bin < total.size(); ++bin) {
        const double shown = split ? parts[0][bin] + parts[1][bin] : parts[0][bin];
        QVERIFY2(close(shown, total[bin]), qPrintable(selection.name));
        if (split) QVERIFY(close(parts[0][bin], doubles(record["histogram_self_s"])[bin]));
      }
      const std::vector<double> states = panel.states()->bars_s();
      const auto runnable = panel.runnable()->bars_s();
      for (size_t s = 0; s < 4; ++s) {
        QVERIFY(close(states[s], record["state_s"][kStates[s]].toDouble()));
        const std::vector<double> expected = doubles(record["runnable_s"][kStates[s]]);
        for (size_t k = 0; k < expected.size(); ++k) {
          // Bins past the last with time in them are not drawn.
          QVERIFY(k < runnable[s].size() ? close(runnable[s][k], expected[k]) : expected[k] == 0);
        }
      }
    };
    check(program_selection(run), json["program_totals"].toObject(), false);
    const QJsonArray procedures = json["procedures"].toArray();
    for (int i = 0; i < procedures.size(); ++i) {
      check(procedure_selection(run, run.view.procedures[size_t(i)]), procedures[i].toObject(),
            true);
    }
    const QJsonArray locks = json["locks"].toArray();
    for (int i = 0; i < locks.size(); ++i)
      check(lock_selection(run, run.view.locks[size_t(i)]), locks[i].toObject(), true);
    const QJsonArray threads = json["threads"].toArray();
    for (int i = 0; i < threads.size(); ++i) {
      check(thread_selection(run, run.view.threads[size_t(i)]), threads[i].toObject(), true);
    }
    const QJsonArray contexts = json["contexts"].toArray();
    for (int i = 0; i < contexts.size(); ++i) {
      panel.show_selection(context_selection(run, i));
      const auto parts = panel.histogram()->bar_parts_s();
      const std::vector<double> total = doubles(contexts[i]["histogram_s"]);
      const std::vector<double> self = doubles(contexts[i]["histogram_self_s"]);
      for (size_t bin = 0; bin < total.size(); ++bin) {
        QVERIFY(close(parts[0][bin], self[bin]));
        QVERIFY(close(parts[0][bin] + parts[1][bin], total[bin]));
      }
    }
  }

  QTemporaryDir dir_;
  QString store_, capture_, real_;
  double elapsed_ = 0;
};

QTEST_MAIN(ReportEqualityTest)
#include "report_equality_test.moc"
