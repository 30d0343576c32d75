// Columns described once, as functions of a row, and one table model built from them
// (STYLE: hotspot's generic models; each view supplies only its rows and headers).
// The context tree uses the same Column descriptions for its nodes.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <QVariant>
#include <functional>
#include <optional>
#include <vector>

namespace quartz::viewer {

enum class Format { Text, Seconds, Percent, Count, Decimal };

struct Column {
  Column(QString header, QString tooltip, Format format, std::function<QVariant(int row)> value,
         std::function<QString(int row)> text = {})
      : header(std::move(header)),
        tooltip(std::move(tooltip)),
        format(format),
        value(std::move(value)),
        text(std::move(text)) {}

  QString header;
  QString tooltip;  // what the column means, shown on its header
  Format format = Format::Seconds;
  std::function<QVariant(int row)> value;  // NumberRole; an invalid QVariant is a blank cell
  std::function<QString(int row)> text;    // DisplayRole when set; else `value`, formatted
};

// A share from the analysis library (analysis::share), or a blank cell when it has none.
QVariant share_cell(std::optional<double> share);

// DisplayRole, NumberRole and TextAlignmentRole of one cell; other roles give QVariant().
QVariant column_data(const Column& column, int row, int role);
// Header text and tooltip.
QVariant column_header(const Column& column, int role);

// A flat table whose rows are 0..rows-1 of something the subclass holds; KeyRole and
// KindRole come from the optional `key` and `kind` functions.
class ColumnTableModel : public QAbstractTableModel {
 public:
  explicit ColumnTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 protected:
  // Resets the model to `rows` rows; `change`, if given, updates the subclass's rows in
  // between (views must not see new rows with an old count).
  void reset_rows(int rows, const std::function<void()>& change = {});
  void set_columns(std::vector<Column> columns) { columns_ = std::move(columns); }
  void set_key(std::function<QVariant(int)> key) { key_ = std::move(key); }
  void set_kind(std::function<QVariant(int)> kind) { kind_ = std::move(kind); }
  // Extra roles (foreground, tooltip) for a whole row.
  void set_row_role(std::function<QVariant(int row, int role)> f) { row_role_ = std::move(f); }

 private:
  std::vector<Column> columns_;
  int rows_ = 0;
  std::function<QVariant(int)> key_, kind_;
  std::function<QVariant(int, int)> row_role_;
};

}  // namespace quartz::viewer
