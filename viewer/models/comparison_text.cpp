#include "viewer/models/comparison_text.h"

#include <QObject>

#include "viewer/models/format.h"

namespace quartz::viewer {

QString relative_change(const analysis::Change& change) {
  const std::optional<double> r = change.relative();
  return r ? QString::asprintf("%+.1f%%", 100 * *r) : QObject::tr("new");
}

QString elapsed_sentence(const analysis::Comparison& c) {
  const analysis::Change& e = c.elapsed;
  return QObject::tr("Elapsed %1 → %2, %3 (noise %4): %5")
      .arg(format_seconds(e.a_s), format_seconds(e.b_s), relative_change(e),
           format_seconds(e.noise_s),
           e.beyond_noise() ? (e.b_s > e.a_s ? QObject::tr("slower, beyond noise")
                                             : QObject::tr("faster, beyond noise"))
                            : QObject::tr("within noise"));
}

QString noise_sentence(const analysis::Comparison& c) {
  return c.run_to_run ? QObject::tr("Noise: the runs' sampling and their spread (99.9%).")
                      : QObject::tr(
                            "Noise: the runs' sampling only. With one run a side the machine's "
                            "run-to-run variation is not known: 'quartz compare A1,A2,A3 "
                            "B1,B2,B3' includes it.");
}

}  // namespace quartz::viewer
