// The statements made from a table's columns (store_tables.h): the INSERT of its rows and
// the SELECT of its columns, each value bound or read by the type of its member (chosen at
// compile time: the tables are constants), in SQL every database.h backend takes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "profile/database.h"
#include "profile/store_tables.h"

namespace quartz::profile::rows {

// What an INSERT does with a row whose primary key (Table::primary_keys) a stored row has.
enum class OnConflict { fail, replace };

// "INSERT INTO t (keys..., columns...) VALUES (?, ...)", of the columns written; replacing:
// "... ON CONFLICT (primary keys) DO UPDATE SET other = excluded.other, ...".
template <typename Row>
std::string insert_sql(const tables::Table<Row>& table, OnConflict on_conflict) {
  std::string names, values, primary, updates;
  const auto append = [](std::string& list, const std::string& item) {
    list += (list.empty() ? "" : ", ") + item;
  };
  // The primary key's columns identify the row; the rest are what a replace updates.
  auto add = [&](const std::string& name, bool in_primary_key) {
    append(in_primary_key ? primary : updates,
           in_primary_key ? name : name + " = excluded." + name);
    append(names, name);
    append(values, "?");
  };
  for (size_t k = 0; k < table.keys.size(); ++k) add(table.keys[k], k < table.primary_keys);
  for (const tables::Column<Row>& column : table.columns) {
    if (column.in != tables::In::select) add(column.name, false);
  }
  std::string sql =
      std::string("INSERT INTO ") + table.name + " (" + names + ") VALUES (" + values + ")";
  if (on_conflict == OnConflict::replace) {
    sql += " ON CONFLICT (" + primary + ") DO UPDATE SET " + updates;
  }
  return sql;
}

// "SELECT leading, columns... FROM t rest", of the columns read: read_row() reads them from
// the column after the `leading` ones.
template <typename Row>
std::string select_sql(const tables::Table<Row>& table, const std::string& rest,
                       const std::string& leading = "") {
  std::string names = leading;
  for (const tables::Column<Row>& column : table.columns) {
    if (column.in == tables::In::insert) continue;
    names += names.empty() ? "" : ", ";
    names += column.name;
  }
  return "SELECT " + names + " FROM " + table.name + (rest.empty() ? "" : " ") + rest;
}

// The member of `row` that holds the value of column I of `table`.
template <const auto& table, size_t I, typename Row>
auto& field_of(Row& row) {
  constexpr const auto& column = table.columns[I];
  return row.*std::get<column.field.index()>(column.field);
}

// Calls `f` with each column of `table` and its member of `row`, in order.
template <const auto& table, typename Row, typename F, size_t... I>
void for_each_field(Row& row, F&& f, std::index_sequence<I...>) {
  (f(table.columns[I], field_of<table, I>(row)), ...);
}
template <const auto& table, typename Row, typename F>
void for_each_field(Row& row, F&& f) {
  for_each_field<table>(row, f, std::make_index_sequence<table.columns.size()>());
}

// Inserts rows of `table` (a store_tables.h constant) through one prepared statement.
template <const auto& table>
class RowInsert {
 public:
  using Row = typename std::remove_cvref_t<decltype(table)>::Row;

  RowInsert(db::Connection& db, std::string what, OnConflict on_conflict = OnConflict::fail,
            const std::string& returning = "")
      : statement_(db.prepare(
            insert_sql(table, on_conflict) + (returning.empty() ? "" : " RETURNING " + returning),
            std::move(what))) {}

  // One row: the values of the table's keys, in order, then the row's.
  // Returns the first column RETURNING gives, if asked, else 0.
  template <typename... Keys>
  int64_t add(const Row& row, Keys... keys) {
    static_assert(sizeof...(Keys) == table.keys.size(), "a value for each key");
    int i = 1;
    (statement_->bind(i++, keys), ...);
    for_each_field<table>(row, [&](const tables::Column<Row>& column, const auto& value) {
      if (column.in == tables::In::select) return;
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(value)>, tables::Blob>) {
        statement_->bind_blob(i++, value);
      } else {
        statement_->bind(i++, value);
      }
    });
    int64_t returned = 0;
    if (statement_->step()) {  // a row RETURNING gave: step on to the statement's end
      returned = statement_->integer(0);
      while (statement_->step()) {
      }
    }
    statement_->reset();
    return returned;
  }

 private:
  std::unique_ptr<db::Statement> statement_;
};

// The columns of `table` that select_sql() reads, from the row `row` stands on, into `out`;
// `first`: the number of columns before them.
template <const auto& table, typename Row>
void read_row(const db::Statement& row, Row& out, int first = 0) {
  int i = first;
  for_each_field<table>(out, [&](const tables::Column<Row>& column, auto& value) {
    if (column.in == tables::In::insert) return;
    using T = std::remove_cvref_t<decltype(value)>;
    if constexpr (std::is_same_v<T, std::string>) {
      value = row.text(i);
    } else if constexpr (std::is_same_v<T, tables::Blob>) {
      value = row.blob(i);
    } else if constexpr (std::is_same_v<T, double>) {
      value = row.real(i);
    } else if constexpr (std::is_same_v<T, bool>) {
      value = row.integer(i) != 0;
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      value = row.unsigned_integer(i);
    } else {
      value = static_cast<T>(row.integer(i));
    }
    ++i;
  });
}

}  // namespace quartz::profile::rows
