#include "viewer/charts/chart_export.h"

#include <QChart>
#include <QChartView>
#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>

namespace quartz::viewer {

bool export_chart(QChartView& view, const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = path + ": " + why;
    return false;
  };
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
    QFile probe(path);  // QSvgGenerator does not report a file it could not open
    if (!probe.open(QIODevice::WriteOnly)) return fail(probe.errorString());
    probe.close();
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(view.size());
    svg.setViewBox(QRect(QPoint(0, 0), view.size()));
    svg.setTitle(view.chart()->title());
    svg.setDescription(QStringLiteral("quartz-view chart"));
    QPainter painter(&svg);
    view.render(&painter);
    return painter.end() ? true : fail(QStringLiteral("cannot write SVG"));
  }
  if (!view.grab().save(path, "PNG")) return fail(QStringLiteral("cannot write PNG"));
  return true;
}

}  // namespace quartz::viewer
