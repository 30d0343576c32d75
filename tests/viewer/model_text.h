// What the model tests compare: a model printed as text, one column's texts, and
// QAbstractItemModelTester's verdict.
#pragma once

#include <QAbstractItemModel>
#include <QAbstractItemModelTester>
#include <QString>
#include <QStringList>

namespace quartz::viewer::test {

// Every row's display text, columns joined by " | ", children indented by two spaces.
inline QString print(const QAbstractItemModel& model, const QModelIndex& parent = {},
                     int depth = 0) {
  QString text;
  for (int row = 0; row < model.rowCount(parent); ++row) {
    QStringList cells;
    for (int column = 0; column < model.columnCount(parent); ++column) {
      cells << model.index(row, column, parent).data().toString();
    }
    text += QString(depth * 2, ' ') + cells.join(" | ") + "\n";
    text += print(model, model.index(row, 0, parent), depth + 1);
  }
  return text;
}

inline QStringList column_text(const QAbstractItemModel& model, int column) {
  QStringList values;
  for (int row = 0; row < model.rowCount(); ++row)
    values << model.index(row, column).data().toString();
  return values;
}

inline void check_model(QAbstractItemModel* model) {
  QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
}

}  // namespace quartz::viewer::test
