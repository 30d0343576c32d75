#include "viewer/models/column_model.h"

#include "viewer/models/format.h"
#include "viewer/models/roles.h"

namespace quartz::viewer {

namespace {

QString formatted(Format format, const QVariant& value) {
  if (!value.isValid()) return {};
  switch (format) {
    case Format::Text:
      return value.toString();
    case Format::Seconds:
      return format_seconds(value.toDouble());
    case Format::Percent:
      return format_percent(value.toDouble());
    case Format::Count:
      return format_count(value.toULongLong());
    case Format::Decimal:
      return QString::asprintf("%.2f", value.toDouble());
  }
  return {};
}

}  // namespace

QVariant share_cell(std::optional<double> share) {
  return share ? QVariant(*share) : QVariant();
}

QVariant column_data(const Column& column, int row, int role) {
  switch (role) {
    case Qt::DisplayRole:
      return column.text ? column.text(row) : formatted(column.format, column.value(row));
    case NumberRole:
      return column.value(row);
    case Qt::TextAlignmentRole:
      return column.format == Format::Text
                 ? QVariant(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter))
                 : QVariant(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    default:
      return {};
  }
}

QVariant column_header(const Column& column, int role) {
  if (role == Qt::DisplayRole) return column.header;
  if (role == Qt::ToolTipRole) return column.tooltip;
  if (role == Qt::TextAlignmentRole) {
    return column.format == Format::Text
               ? QVariant(Qt::Alignment(Qt::AlignLeft | Qt::AlignVCenter))
               : QVariant(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  }
  return {};
}

int ColumnTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}

int ColumnTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

QVariant ColumnTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const int row = index.row();
  if (role == KeyRole) return key_ ? key_(row) : QVariant();
  if (role == KindRole) return kind_ ? kind_(row) : QVariant();
  const QVariant cell = column_data(columns_[static_cast<size_t>(index.column())], row, role);
  if (cell.isValid() || !row_role_) return cell;
  return row_role_(row, role);
}

QVariant ColumnTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) {
    return QAbstractTableModel::headerData(section, orientation, role);
  }
  return column_header(columns_[static_cast<size_t>(section)], role);
}

void ColumnTableModel::reset_rows(int rows, const std::function<void()>& change) {
  beginResetModel();
  if (change) change();
  rows_ = rows;
  endResetModel();
}

}  // namespace quartz::viewer
