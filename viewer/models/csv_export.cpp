#include "viewer/models/csv_export.h"

#include <QFile>
#include <QSaveFile>

#include "viewer/models/roles.h"

namespace quartz::viewer {

namespace {

QString csv_field(const QVariant& value) {
  if (!value.isValid()) return {};
  QString text = value.typeId() == QMetaType::Double ? QString::number(value.toDouble(), 'g', 17)
                                                     : value.toString();
  if (text.contains(QLatin1Char(',')) || text.contains(QLatin1Char('"')) ||
      text.contains(QLatin1Char('\n'))) {
    text.replace(QLatin1String("\""), QLatin1String("\"\""));
    text = QLatin1Char('"') + text + QLatin1Char('"');
  }
  return text;
}

bool is_tree(const QAbstractItemModel& model) {
  for (int row = 0; row < model.rowCount(); ++row) {
    if (model.hasChildren(model.index(row, 0))) return true;
  }
  return false;
}

void write_rows(const QAbstractItemModel& model, const QModelIndex& parent, int depth, bool tree,
                QTextStream& out) {
  const int columns = model.columnCount(parent);
  for (int row = 0; row < model.rowCount(parent); ++row) {
    QStringList fields;
    if (tree) fields << QString::number(depth);
    for (int column = 0; column < columns; ++column) {
      QVariant value = model.index(row, column, parent).data(NumberRole);
      if (!value.isValid()) value = model.index(row, column, parent).data(Qt::DisplayRole);
      fields << csv_field(value);
    }
    out << fields.join(QLatin1Char(',')) << '\n';
    if (tree) write_rows(model, model.index(row, 0, parent), depth + 1, tree, out);
  }
}

}  // namespace

void write_csv(const QAbstractItemModel& model, QTextStream& out) {
  const bool tree = is_tree(model);
  QStringList header;
  if (tree) header << QStringLiteral("depth");
  for (int column = 0; column < model.columnCount(); ++column) {
    header << csv_field(model.headerData(column, Qt::Horizontal, Qt::DisplayRole));
  }
  out << header.join(QLatin1Char(',')) << '\n';
  write_rows(model, {}, 0, tree, out);
}

bool write_csv_file(const QAbstractItemModel& model, const QString& path, QString* error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  QTextStream out(&file);
  write_csv(model, out);
  out.flush();
  if (!file.commit()) {
    if (error) *error = path + ": " + file.errorString();
    return false;
  }
  return true;
}

}  // namespace quartz::viewer
