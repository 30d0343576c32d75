#include "viewer/models/what_if_text.h"

#include <QObject>
#include <QStringList>

#include "analysis/text_format.h"
#include "analysis/trust_warnings.h"
#include "viewer/models/format.h"

namespace quartz::viewer {

std::optional<double> change_of(double value, double reference) {
  if (!(reference > 0)) return std::nullopt;
  return (value - reference) / reference;
}

QString signed_change(double value, double reference) {
  return QString::fromStdString(analysis::text::change(value, reference));
}

QString what_ifs_missing(const RunData* run) {
  if (!run) return QObject::tr("No run open: File ▸ Open (Ctrl+O).");
  if (!run->what_ifs.empty()) return {};
  if (!run->what_ifs_error.empty()) {
    return QObject::tr("The predictions stored with this run could not be read (%1).")
        .arg(QString::fromStdString(run->what_ifs_error));
  }
  if (!run->id) {
    return run->view.quality.traced
               ? QObject::tr(
                     "What-ifs are stored with runs in a store: import this capture "
                     "and its trace with 'quartz import %1', then ask 'quartz predict'.")
                     .arg(QString::fromStdString(run->source))
               : QObject::tr(
                     "This capture has no trace: record the program with 'quartz run "
                     "--trace', then ask 'quartz predict' and open the run from its "
                     "store to see the answers here.");
  }
  const QString store = QString::fromStdString(run->source);
  const QString id = QString::number(*run->id);
  if (!run->has_trace) {
    return QObject::tr(
               "Run %1 has no trace: record the program again with 'quartz run "
               "--trace', then ask 'quartz predict' about that run.")
        .arg(id);
  }
  return QObject::tr(
             "No predictions are stored with run %1 yet: ask, for instance, "
             "'quartz predict --store %2 %1 --cores 2' (or --group, --zero, --speedup, "
             "--migrate), then reload it (F5).")
      .arg(id, store);
}

QString check_sentence(const analysis::Predictions& p) {
  const analysis::PredictionRange& r = p.recorded_range;
  const bool inside = p.observed_s >= r.low_s && p.observed_s <= r.high_s;
  return QObject::tr(
             "Replayed as recorded %1 under %2 scheduler model%3, %4 under the most likely; "
             "recorded %5 on %6 processor%7, %8 the range (%9 from the most likely: the "
             "model's error on what it saw).")
      .arg(QString::fromStdString(analysis::text::seconds_range(r.low_s, r.high_s)))
      .arg(QString::fromStdString(analysis::models_counted(p.models)))
      .arg(p.models.size() == 1 ? "" : "s")
      .arg(format_seconds(p.recorded_s),
           p.profiled_s > 0 ? QObject::tr("%1 unprofiled (--baseline; %2 profiled)")
                                  .arg(format_seconds(p.observed_s), format_seconds(p.profiled_s))
                            : format_seconds(p.observed_s))
      .arg(p.processors)
      .arg(p.processors == 1 ? "" : "s")
      .arg(inside ? QObject::tr("inside") : QObject::tr("outside"),
           signed_change(p.recorded_s, p.observed_s));
}

QString critical_path_sentence(const analysis::Predictions& p) {
  const analysis::CriticalPath& cp = p.critical_path;
  return QObject::tr(
             "Critical path (every thread on a processor of its own) %1, %2 of the "
             "recorded elapsed time: %3 on a processor, %4 off it (I/O, sleep).")
      .arg(format_seconds(cp.length_s), format_percent(cp.share), format_seconds(cp.cpu_s),
           format_seconds(cp.delay_s));
}

QString trace_warning(const analysis::Predictions& p) {
  QStringList warnings;
  for (const analysis::TrustWarning& w : analysis::trust_warnings(p)) {
    warnings << QString::fromStdString(w.text);
  }
  return warnings.join(QStringLiteral("; "));
}

}  // namespace quartz::viewer
