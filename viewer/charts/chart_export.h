// Saving a chart: SVG for a file ending in .svg (vector, for papers), PNG otherwise.
#pragma once

#include <QString>

class QChartView;

namespace quartz::viewer {

// False, with `error` set, when the file cannot be written.
bool export_chart(QChartView& view, const QString& path, QString* error);

}  // namespace quartz::viewer
