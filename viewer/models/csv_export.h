// Tables as CSV: a header line, then every row the model holds (a proxy's filtered, sorted
// rows; a tree depth-first, with a leading "depth" column). Cells are the NumberRole
// values, the numbers as analysis computed them (seconds, not "1.3 ms").
#pragma once

#include <QAbstractItemModel>
#include <QTextStream>

namespace quartz::viewer {

void write_csv(const QAbstractItemModel& model, QTextStream& out);

// Writes to a file; false (with `error` set) when it cannot be written.
bool write_csv_file(const QAbstractItemModel& model, const QString& path, QString* error);

}  // namespace quartz::viewer
