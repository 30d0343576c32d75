// The experiment store: runs stored and loaded back field by field, summaries, several runs
// and reopening, metric tables read with plain SQL, and every refusal (foreign files, other
// SQLite databases, newer schemas, missing runs, corrupt stored captures) as a StoreError
// naming the file.
#include "profile/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "profile/capture.h"
#include "profile/store_tables.h"
#include "tests/testing/store_fixture.h"

namespace quartz::profile {
namespace {

using namespace store_test;
using test_support::CaptureFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST_F(StoreTest, NewStoreIsEmpty) {
  Store store(path_);
  EXPECT_TRUE(store.list().empty());
  EXPECT_EQ(store.latest(), std::nullopt);
  EXPECT_EQ(store.summary(1), std::nullopt);
  EXPECT_TRUE(Store::looks_like_store(path_));
  Database db(path_);
  EXPECT_EQ(db.value("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(db.value("SELECT value FROM meta WHERE key = 'schema_version'"), "7");
  EXPECT_EQ(db.value("SELECT value FROM meta WHERE key = 'application'"), "quartz");
}

// The column lists the statements are made from (store_tables.h) name every column of their
// tables in a new store, and no other.
TEST_F(StoreTest, ColumnListsAreTheSchemasColumns) {
  Store store(path_);
  Database db(path_);
  auto in_schema = [&](const std::string& table) {
    std::set<std::string> names;
    for (const auto& row : db.rows("PRAGMA table_info(" + table + ")")) names.insert(row.at(1));
    return names;
  };
  auto listed = [](const auto& table) {
    std::set<std::string> names(table.keys.begin(), table.keys.end());
    for (const auto& column : table.columns) names.insert(column.name);
    return names;
  };
  EXPECT_EQ(listed(tables::kRuns), in_schema("runs"));
  EXPECT_EQ(listed(tables::kSymbols), in_schema("symbols"));
  EXPECT_EQ(listed(tables::kProcedures), in_schema("procedures"));
  EXPECT_EQ(listed(tables::kLocks), in_schema("locks"));
  EXPECT_EQ(listed(tables::kThreads), in_schema("threads"));
  EXPECT_EQ(listed(tables::kPredictions), in_schema("predictions"));
  EXPECT_EQ(listed(tables::kRunLinks), in_schema("run_links"));
  EXPECT_EQ(listed(tables::kRunSeries), in_schema("run_series"));
}

TEST_F(StoreTest, RoundTrip) {
  UtcTime utc;
  const Imported first = imported(test_support::sample_run());
  Store store(path_);
  const int64_t id = store.add_run(first.bytes, first.run, "/data/solver.qz", "--period=1ms");
  EXPECT_EQ(id, 1);

  test_support::expect_same_run(first.run, store.load(id));

  const std::optional<RunSummary> s = store.summary(id);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->id, 1);
  EXPECT_EQ(s->program, "/opt/bench/solver");
  EXPECT_EQ(s->arguments, "--threads 8 input file.dat");
  EXPECT_EQ(s->started, "2023-11-14 22:13:20");  // 1700000000 s after the epoch
  EXPECT_EQ(s->host, "node17");
  EXPECT_EQ(s->topology, "Package:1 Core:4 PU:8");
  EXPECT_DOUBLE_EQ(s->elapsed_s, 2.5);
  EXPECT_DOUBLE_EQ(s->period_s, 0.001);
  EXPECT_DOUBLE_EQ(s->torn_rate, 50.0 / 20000.0);
  EXPECT_DOUBLE_EQ(s->dilation_removed_s, 0.12);
  EXPECT_DOUBLE_EQ(s->sampler_cpu_s, 0.03);
  EXPECT_EQ(s->processors, 3u);
  EXPECT_EQ(s->samples, 2500u);
  EXPECT_TRUE(s->reserved_core);
  EXPECT_TRUE(s->final);
  EXPECT_EQ(s->capture_path, "/data/solver.qz");
  EXPECT_EQ(s->options, "--period=1ms");

  const std::vector<RunSummary> all = store.list();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, 1);
  EXPECT_EQ(all[0].program, s->program);
  EXPECT_EQ(store.latest(), 1);

  // The capture is kept exactly as read; addresses are signed 64-bit bit patterns.
  Database db(path_);
  EXPECT_EQ(db.capture(1), first.bytes);
  EXPECT_EQ(db.value("SELECT count(*) FROM symbols WHERE run_id = 1"), "3");
  EXPECT_EQ(db.value("SELECT function FROM symbols WHERE address < 0"), "");
  EXPECT_EQ(db.value("SELECT module FROM symbols WHERE address < 0"), "[vsyscall]");
  EXPECT_EQ(db.value("SELECT address FROM symbols WHERE function = 'solve(Grid&)'"),
            std::to_string(0x555555555100));
}

TEST_F(StoreTest, RunWithoutRunKeysOrSymbols) {
  Store store(path_);
  const std::vector<unsigned char> bytes = CaptureFile(1, 2).final(false).bytes();
  const int64_t id = store.add_run(bytes, parse_capture(bytes, "bare.qz"), "", "");
  const RunSummary s = store.summary(id).value();
  EXPECT_EQ(s.program, "");
  EXPECT_EQ(s.started, "");
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.torn_rate, 0);
  EXPECT_FALSE(s.final);
  EXPECT_FALSE(s.reserved_core);
  const profile::Run loaded = store.load(id);
  EXPECT_TRUE(loaded.symbols.empty());
  EXPECT_FALSE(loaded.final);
}

TEST_F(StoreTest, SeveralRunsAndReopening) {
  const std::vector<uint32_t> processors = {1, 2, 4, 8};
  std::vector<Imported> runs;
  for (uint32_t p : processors) runs.push_back(imported(run_on(p, p != 4), p != 2));
  {
    Store store(path_);
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(store.add_run(runs[i].bytes, runs[i].run, "run" + std::to_string(i) + ".qz",
                              "p=" + std::to_string(processors[i])),
                static_cast<int64_t>(i + 1));
    }
  }
  Store store(path_);
  const std::vector<RunSummary> all = store.list();
  ASSERT_EQ(all.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE("run " + std::to_string(i + 1));
    EXPECT_EQ(all[i].id, static_cast<int64_t>(i + 1));
    EXPECT_EQ(all[i].processors, processors[i]);
    EXPECT_EQ(all[i].final, processors[i] != 4);
    EXPECT_DOUBLE_EQ(all[i].elapsed_s, 8.0 / processors[i]);
    EXPECT_EQ(all[i].capture_path, "run" + std::to_string(i) + ".qz");
    test_support::expect_same_run(runs[i].run, store.load(all[i].id));
  }
  EXPECT_EQ(store.latest(), 3);
  EXPECT_EQ(store.add_run(runs[3].bytes, runs[3].run, "run3.qz", ""), 4);
  EXPECT_EQ(store.latest(), 4);
  test_support::expect_same_run(runs[3].run, store.load(4));
  EXPECT_TRUE(store.load(2).symbols.empty());
}

// The runs of a series (quartz scale) are found from any of them, and a run deleted from
// the store leaves it.
TEST_F(StoreTest, SeriesAreKeptByTheirFirstRun) {
  Store store(path_);
  for (uint32_t p : {1u, 2u, 4u}) {
    const Imported run = imported(run_on(p, true), true);
    store.add_run(run.bytes, run.run, "run" + std::to_string(p) + ".qz", "");
  }
  store.add_to_series(1, 1);
  store.add_to_series(3, 1);
  EXPECT_EQ(store.series_of(3), 1);
  EXPECT_EQ(store.series_of(2), std::nullopt);
  EXPECT_EQ(store.series_runs(1), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(store.series_runs(2).empty());
}

// Two processes importing into one store at once get distinct ids.
TEST_F(StoreTest, TwoConnections) {
  const Imported first = imported(sample_run_of(1));
  const Imported second = imported(sample_run_of(2));
  Store a(path_);
  Store b(path_);
  EXPECT_EQ(a.add_run(first.bytes, first.run, "a.qz", ""), 1);
  EXPECT_EQ(b.add_run(second.bytes, second.run, "b.qz", ""), 2);
  EXPECT_EQ(a.latest(), 2);
  EXPECT_EQ(a.list().size(), 2u);
}

TEST_F(StoreTest, MetricsAreQueryable) {
  Store store(path_);
  for (uint32_t p : {2u, 4u}) {
    const Imported run = imported(run_on(p));
    const int64_t id = store.add_run(run.bytes, run.run, "", "");
    const double scale = 1.0 / p;
    store.add_metrics(
        id,
        {{"solve(Grid&)", "/src/solver.cpp:42", 4 * scale, 1 * scale, 8.0, 10},
         {"relax(Row&, int)", "/src/relax.cpp:7", 3 * scale, 3 * scale, 6.0, 1'000'000}},
        {{"queue lock", "mutex", 0.5 * scale, 0.25, 0.125, 5000, 700 / p},
         {"barrier@solve", "barrier", 0.75, 0.5, 0, 40, 40}},
        {{0, "main", 1.5, 2.0, 0, 0.5, 0}, {1, "worker", 2.5 * scale, 2.25, 0.125, 0, 0.25}});
  }

  Database db(path_);
  // The normalized time of one procedure in every run, with the run's processor count.
  EXPECT_THAT(db.rows("SELECT r.processors, p.normalized_s, p.calls FROM procedures p "
                      "JOIN runs r ON r.id = p.run_id WHERE p.name = 'solve(Grid&)' ORDER BY r.id"),
              ElementsAre(ElementsAre("2", "2.0", "10"), ElementsAre("4", "1.0", "10")));
  EXPECT_THAT(db.rows("SELECT run_id, contended, acquisitions, kind FROM locks "
                      "WHERE name = 'queue lock' ORDER BY run_id"),
              ElementsAre(ElementsAre("1", "350", "5000", "mutex"),
                          ElementsAre("2", "175", "5000", "mutex")));
  EXPECT_THAT(
      db.rows("SELECT run_id, thread_index, normalized_s, spinning_s FROM threads "
              "WHERE name = 'worker' ORDER BY run_id"),
      ElementsAre(ElementsAre("1", "1", "1.25", "0.125"), ElementsAre("2", "1", "0.625", "0.125")));
  EXPECT_EQ(db.value("SELECT location FROM procedures WHERE run_id = 2 AND calls = 1000000"),
            "/src/relax.cpp:7");

  // A second analysis replaces the first.
  store.add_metrics(1, {{"solve(Grid&)", "", 9, 9, 9, 1}}, {}, {});
  EXPECT_EQ(db.value("SELECT count(*) FROM procedures WHERE run_id = 1"), "1");
  EXPECT_EQ(db.value("SELECT normalized_s FROM procedures WHERE run_id = 1"), "9.0");
  EXPECT_EQ(db.value("SELECT count(*) FROM locks WHERE run_id = 1"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM threads WHERE run_id = 2"), "2");

  EXPECT_EQ(store_error([&] {
              store.add_metrics(9, {{"f", "", 1, 1, 1, 1}}, {}, {});
            }),
            path_ + ": no run 9");
  EXPECT_EQ(db.value("SELECT count(*) FROM procedures WHERE run_id = 9"), "0");
}

TEST_F(StoreTest, RefusesAFileThatIsNotSqlite) {
  const std::string text = dir_ + "/notes.txt";
  write_file(text, "These are my notes about the solver's scaling, not a database.\n");
  EXPECT_EQ(store_error([&] { Store store(text); }), text + ": not a Quartz store");
  EXPECT_EQ(read_file(text), "These are my notes about the solver's scaling, not a database.\n");

  // A capture given where a store was expected.
  const std::string capture = dir_ + "/run.qz";
  const std::vector<unsigned char> bytes = CaptureFile().bytes();
  write_file(capture, std::string(bytes.begin(), bytes.end()));
  EXPECT_EQ(store_error([&] { Store store(capture); }), capture + ": not a Quartz store");
  EXPECT_FALSE(Store::looks_like_store(capture));
  EXPECT_FALSE(Store::looks_like_store(text));
  EXPECT_FALSE(Store::looks_like_store(dir_ + "/missing"));

  // A file that starts like SQLite but is not a database.
  const std::string fake = dir_ + "/fake.db";
  write_file(fake, std::string("SQLite format 3\0", 16) + std::string(2000, '\x7f'));
  EXPECT_EQ(store_error([&] { Store store(fake); }), fake + ": not a Quartz store");
}

TEST_F(StoreTest, RefusesAnotherSqliteDatabase) {
  const std::string other = dir_ + "/other.db";
  {
    Database db(other);
    db.exec(
        "CREATE TABLE inventory (item TEXT, count INTEGER); INSERT INTO inventory VALUES ('bolt', "
        "3)");
  }
  const std::string before = read_file(other);
  EXPECT_TRUE(Store::looks_like_store(other));
  EXPECT_EQ(store_error([&] { Store store(other); }), other + ": not a Quartz store");
  EXPECT_EQ(read_file(other), before);  // not touched: still in its own journal mode
  {
    Database db(other);
    EXPECT_EQ(db.value("PRAGMA journal_mode"), "delete");
  }

  // A "meta" table of another shape, and one without Quartz's entries.
  const std::string shaped = dir_ + "/shaped.db";
  {
    Database db(shaped);
    db.exec("CREATE TABLE meta (name TEXT, data BLOB)");
  }
  EXPECT_EQ(store_error([&] { Store store(shaped); }), shaped + ": not a Quartz store");
  const std::string unclaimed = dir_ + "/unclaimed.db";
  {
    Database db(unclaimed);
    db.exec(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value); "
        "INSERT INTO meta VALUES ('schema_version', 1)");
  }
  EXPECT_EQ(store_error([&] { Store store(unclaimed); }), unclaimed + ": not a Quartz store");
}

TEST_F(StoreTest, AnEmptyFileBecomesAStore) {
  write_file(path_, "");
  {
    Store store(path_);
    const Imported run = imported(test_support::sample_run());
    EXPECT_EQ(store.add_run(run.bytes, run.run, "", ""), 1);
  }
  EXPECT_EQ(Store(path_).latest(), 1);
}

TEST_F(StoreTest, RefusesANewerSchema) {
  { Store store(path_); }
  {
    Database db(path_);
    db.exec("UPDATE meta SET value = 8 WHERE key = 'schema_version'");
  }
  EXPECT_EQ(store_error([&] { Store store(path_); }),
            path_ + ": store schema version 8, this Quartz reads version 7");
  EXPECT_EQ(store_error([&] { Store store(path_, StoreAccess::read_only); }),
            path_ + ": store schema version 8, this Quartz reads version 7");
}

TEST_F(StoreTest, UpgradesAVersionOneStore) {
  const Imported run = imported(test_support::sample_run());
  int64_t id = 0;
  {
    Store store(path_);
    id = store.add_run(run.bytes, run.run, "", "");
  }
  {
    Database db(path_);  // as version 1 left it
    db.as_before_version_5();
    db.exec("DROP TABLE traces; DROP TABLE predictions; DROP TABLE run_links;");
    db.exec("DROP INDEX runs_by_capture_crc32; ALTER TABLE runs DROP COLUMN capture_crc32");
    db.exec("UPDATE meta SET value = 1 WHERE key = 'schema_version'");
  }
  Store store(path_);
  EXPECT_FALSE(store.has_trace(id));
  store.add_prediction(id, "--cores 1", "{}");
  EXPECT_EQ(store.predictions(id).size(), 1u);
  EXPECT_EQ(store.load(id).threads.size(), run.run.threads.size());
  Database db(path_);
  EXPECT_EQ(db.rows("SELECT value FROM meta WHERE key = 'schema_version'"),
            (std::vector<std::vector<std::string>>{{"7"}}));
}

TEST_F(StoreTest, TracesAreStreamedInAndOutExactly) {
  const Imported run = imported(test_support::sample_run());
  Store store(path_);
  const int64_t id = store.add_run(run.bytes, run.run, "", "");
  EXPECT_THROW(store.open_trace(id), StoreError);
  // Larger than the pieces it is copied in, and not a multiple of them.
  std::vector<unsigned char> bytes(3 * (1 << 20) + 12345);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
  const std::string trace = dir_ + "/run.qcap.trace";
  {
    std::ofstream out(trace, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  store.add_trace(id, trace);
  EXPECT_TRUE(store.has_trace(id));
  auto source = store.open_trace(id);
  std::vector<unsigned char> back;
  unsigned char piece[70000];
  for (size_t n; (n = source->read(piece, sizeof piece)) > 0;)
    back.insert(back.end(), piece, piece + n);
  EXPECT_EQ(back, bytes);
  EXPECT_EQ(source->name(), path_ + ": run " + std::to_string(id) + ": trace");
}

TEST_F(StoreTest, PredictionsAreKeptWithTheirRun) {
  const Imported first = imported(sample_run_of(1));
  const Imported second = imported(sample_run_of(2));
  Store store(path_);
  const int64_t a = store.add_run(first.bytes, first.run, "", "");
  const int64_t b = store.add_run(second.bytes, second.run, "", "");
  store.add_prediction(a, "--cores 1", "{\"x\": 1}");
  store.add_prediction(a, "--zero f", "{\"x\": 2}");
  const auto predictions = store.predictions(a);
  ASSERT_EQ(predictions.size(), 2u);
  EXPECT_EQ(predictions[0].question, "--cores 1");
  EXPECT_EQ(predictions[1].json, "{\"x\": 2}");
  EXPECT_FALSE(predictions[0].made.empty());
  EXPECT_TRUE(store.predictions(b).empty());
}

TEST_F(StoreTest, CannotOpen) {
  const std::string nowhere = dir_ + "/no/such/dir/runs.qdb";
  EXPECT_THAT(store_error([&] { Store store(nowhere); }), StartsWith(nowhere + ": cannot open: "));
  EXPECT_THAT(store_error([&] { Store store(dir_); }), StartsWith(dir_ + ": cannot open: "));
  EXPECT_FALSE(std::filesystem::exists(nowhere));
}

TEST_F(StoreTest, LoadingAMissingRun) {
  Store store(path_);
  EXPECT_EQ(store_error([&] { store.load(1); }), path_ + ": no run 1");
  const Imported run = imported(test_support::sample_run());
  store.add_run(run.bytes, run.run, "", "");
  EXPECT_EQ(store_error([&] { store.load(2); }), path_ + ": no run 2");
  EXPECT_EQ(store_error([&] { store.load(-1); }), path_ + ": no run -1");
  EXPECT_EQ(store.summary(2), std::nullopt);
}

TEST_F(StoreTest, CorruptStoredCapture) {
  Store store(path_);
  for (int pid : {1, 2}) {
    const Imported run = imported(sample_run_of(pid));
    store.add_run(run.bytes, run.run, "", "");
  }
  {
    Database db(path_);
    std::vector<unsigned char> bytes = db.capture(1);
    bytes[200] ^= 0x04;
    db.set_capture(1, bytes);
    db.exec("UPDATE chunks SET bytes = substr(bytes, 1, 1000) WHERE run_id = 2");
    EXPECT_EQ(db.value("SELECT typeof(bytes) FROM chunks WHERE run_id = 2"), "blob");
  }
  const std::string flipped = store_error([&] { store.load(1); });
  EXPECT_THAT(flipped, StartsWith(path_ + ": run 1: "));
  EXPECT_THAT(flipped, HasSubstr("offset"));
  EXPECT_THAT(flipped, HasSubstr("checksum mismatch"));
  const std::string truncated = store_error([&] { store.load(2); });
  EXPECT_THAT(truncated, StartsWith(path_ + ": run 2: "));
  EXPECT_THAT(truncated, HasSubstr("offset"));
  // The summaries do not read the capture.
  EXPECT_EQ(store.list().size(), 2u);
}

// Every table refers to runs: deleting a run with SQL deletes all of its rows.
TEST_F(StoreTest, DeletingARunDeletesItsRows) {
  {
    Store store(path_);
    for (int pid : {1, 2}) {
      const Imported run = imported(sample_run_of(pid));
      store.add_run(run.bytes, run.run, "", "");
    }
    for (int64_t id : {1, 2}) {
      store.add_metrics(id, {{"f", "", 1, 1, 1, 1}}, {{"m", "mutex", 1, 1, 1, 1, 1}},
                        {{0, "main", 1, 1, 0, 0, 0}});
    }
  }
  Database db(path_);
  db.exec("PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 1");
  for (const char* table : {"symbols", "procedures", "locks", "threads"}) {
    SCOPED_TRACE(table);
    EXPECT_THAT(db.rows(std::string("SELECT DISTINCT run_id FROM ") + table),
                ElementsAre(ElementsAre("2")));
  }
  // Ids are never reused, even the highest one's.
  db.exec("DELETE FROM runs WHERE id = 2");
  Store store(path_);
  EXPECT_EQ(store.latest(), std::nullopt);
  const Imported run = imported(sample_run_of(3));
  EXPECT_EQ(store.add_run(run.bytes, run.run, "", ""), 3);
}

}  // namespace
}  // namespace quartz::profile
