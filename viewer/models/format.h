// How the viewer writes numbers: seconds with a unit that keeps three significant digits
// readable (as `quartz report` does), percentages, and counts with digit grouping; and
// names cut to fit a chart's legend or axis.
#pragma once

#include <QString>
#include <cstdint>

namespace quartz::viewer {

QString format_seconds(double s);         // "1.308 s", "95.00 ms", "11.8 µs", "0 s"
QString format_percent(double fraction);  // 0.995 -> "99.5%"
QString format_count(uint64_t n);         // 6000 -> "6,000"
// `text` in at most `length` characters, cut with an ellipsis.
QString elided(const QString& text, int length);

}  // namespace quartz::viewer
