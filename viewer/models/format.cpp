#include "viewer/models/format.h"

#include <QLocale>
#include <cmath>

namespace quartz::viewer {

QString format_seconds(double s) {
  const double a = std::fabs(s);
  if (a == 0) return QStringLiteral("0 s");
  if (a >= 100) return QString::asprintf("%.1f s", s);
  if (a >= 1) return QString::asprintf("%.3f s", s);
  if (a >= 1e-3) return QString::asprintf("%.2f ms", s * 1e3);
  return QString::asprintf("%.1f", s * 1e6) + QStringLiteral(" µs");
}

QString format_percent(double fraction) {
  return QString::asprintf("%.1f%%", 100 * fraction);
}

QString format_count(uint64_t n) {
  return QLocale(QLocale::English).toString(static_cast<qulonglong>(n));
}

QString elided(const QString& text, int length) {
  return text.size() <= length ? text : text.left(length - 1) + QChar(0x2026);
}

}  // namespace quartz::viewer
