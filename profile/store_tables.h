// The store's tables (schema: store.h, store_schema.cpp) as lists of columns: each column's
// name and the member of the table's row type that holds its value. The INSERT and SELECT
// statements are made from these lists (SQLite's: sqlite_rows.h), so that a column is named
// once; they name no backend, for a second one to make its statements from them too.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "profile/run.h"
#include "profile/store.h"

namespace quartz::profile::tables {

using Blob = std::vector<unsigned char>;

// The member of `Row` that holds a column's value: the value types the store holds.
template <typename Row>
using Field = std::variant<std::string Row::*, double Row::*, int64_t Row::*, uint64_t Row::*,
                           uint32_t Row::*, int Row::*, bool Row::*, Blob Row::*>;

// The statements a column takes part in.
enum class In {
  both,
  insert,  // written with the row, read apart (a run's capture)
  select,  // given by the database (a run's id)
};

template <typename Row>
struct Column {
  const char* name;
  Field<Row> field;
  In in = In::both;
};

// A table of `Row`s. Its keys are columns before the row's whose values each statement is
// given apart from the row (the run a metric belongs to).
template <typename R>
struct Table {
  using Row = R;
  const char* name;
  std::span<const char* const> keys;
  std::span<const Column<Row>> columns;
  size_t primary_keys = 1;  // the leading keys that make the primary key
};

inline constexpr const char* kByRun[] = {"run_id"};

// runs: one a stored run. Its summary (RunSummary::started is start_realtime_ns as local
// time, read apart), and its capture.
struct RunRow : RunSummary {
  int64_t start_realtime_ns = 0;  // 0: not recorded
  Blob capture;                   // the capture whole, before version 5; empty since
  int64_t capture_crc32 = 0;
  int64_t capture_bytes = 0;  // the size of the capture in chunks (store_chunks.h)
};
inline constexpr Column<RunRow> kRunColumns[] = {
    {"id", &RunRow::id, In::select},
    {"program", &RunRow::program},
    {"arguments", &RunRow::arguments},
    {"start_realtime_ns", &RunRow::start_realtime_ns},
    {"host", &RunRow::host},
    {"topology", &RunRow::topology},
    {"elapsed_s", &RunRow::elapsed_s},
    {"period_s", &RunRow::period_s},
    {"torn_rate", &RunRow::torn_rate},
    {"dilation_removed_s", &RunRow::dilation_removed_s},
    {"sampler_cpu_s", &RunRow::sampler_cpu_s},
    {"processors", &RunRow::processors},
    {"samples", &RunRow::samples},
    {"reserved_core", &RunRow::reserved_core},
    {"final", &RunRow::final},
    {"capture_path", &RunRow::capture_path},
    {"options", &RunRow::options},
    {"capture", &RunRow::capture, In::insert},
    {"capture_crc32", &RunRow::capture_crc32, In::insert},
    {"capture_bytes", &RunRow::capture_bytes, In::insert},
};
inline constexpr Table<RunRow> kRuns{"runs", {}, kRunColumns};

// symbols: by run and address.
inline constexpr const char* kSymbolKeys[] = {"run_id", "address"};
inline constexpr Column<Symbol> kSymbolColumns[] = {
    {"function", &Symbol::function},
    {"file", &Symbol::file},
    {"line", &Symbol::line},
    {"module", &Symbol::module},
};
inline constexpr Table<Symbol> kSymbols{"symbols", kSymbolKeys, kSymbolColumns};

// The metrics of a run.
inline constexpr Column<ProcedureMetric> kProcedureColumns[] = {
    {"name", &ProcedureMetric::name},
    {"location", &ProcedureMetric::location},
    {"normalized_s", &ProcedureMetric::normalized_s},
    {"normalized_self_s", &ProcedureMetric::normalized_self_s},
    {"processor_s", &ProcedureMetric::processor_s},
    {"calls", &ProcedureMetric::calls},
};
inline constexpr Table<ProcedureMetric> kProcedures{"procedures", kByRun, kProcedureColumns};

inline constexpr Column<LockMetric> kLockColumns[] = {
    {"name", &LockMetric::name},
    {"kind", &LockMetric::kind},
    {"normalized_s", &LockMetric::normalized_s},
    {"wait_s", &LockMetric::wait_s},
    {"hold_s", &LockMetric::hold_s},
    {"acquisitions", &LockMetric::acquisitions},
    {"contended", &LockMetric::contended},
    {"object_id", &LockMetric::id},
};
inline constexpr Table<LockMetric> kLocks{"locks", kByRun, kLockColumns};

inline constexpr Column<ThreadMetric> kThreadColumns[] = {
    {"thread_index", &ThreadMetric::index},        {"name", &ThreadMetric::name},
    {"normalized_s", &ThreadMetric::normalized_s}, {"busy_s", &ThreadMetric::busy_s},
    {"spinning_s", &ThreadMetric::spinning_s},     {"blocked_s", &ThreadMetric::blocked_s},
    {"ready_s", &ThreadMetric::ready_s},
};
inline constexpr Table<ThreadMetric> kThreads{"threads", kByRun, kThreadColumns};

// predictions: `quartz predict` results of a run, oldest first.
struct PredictionRow {
  int64_t made_realtime_ns = 0;
  std::string question, json;
};
inline constexpr Column<PredictionRow> kPredictionColumns[] = {
    {"made_realtime_ns", &PredictionRow::made_realtime_ns},
    {"question", &PredictionRow::question},
    {"json", &PredictionRow::json},
};
inline constexpr Table<PredictionRow> kPredictions{"predictions", kByRun, kPredictionColumns};

// labels: a run's key=value labels; run_builds: its program's build.
struct LabelRow {
  std::string value;
};
inline constexpr const char* kLabelKeys[] = {"run_id", "key"};
inline constexpr Column<LabelRow> kLabelColumns[] = {{"value", &LabelRow::value}};
inline constexpr Table<LabelRow> kLabels{"labels", kLabelKeys, kLabelColumns, 2};
inline constexpr Column<ProgramBuild> kBuildColumns[] = {
    {"compiler", &ProgramBuild::compiler},
    {"build_id", &ProgramBuild::build_id},
};
inline constexpr Table<ProgramBuild> kBuilds{"run_builds", kByRun, kBuildColumns};

// Tables that relate runs, whose every column is a key: run_links, the run of the program
// that started a run's (--follow-exec); run_series, the `quartz scale` series of a run (its
// first run's id). One row a run.
struct KeysOnly {};
inline constexpr const char* kRunLinkKeys[] = {"run_id", "parent_run"};
inline constexpr Table<KeysOnly> kRunLinks{"run_links", kRunLinkKeys, {}};
inline constexpr const char* kRunSeriesKeys[] = {"run_id", "series"};
inline constexpr Table<KeysOnly> kRunSeries{"run_series", kRunSeriesKeys, {}};

}  // namespace quartz::profile::tables
