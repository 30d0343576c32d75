// What the store's tests share: plain SQL on a store's file, runs as the CLI imports them,
// a fixture with a scratch directory, and UTC for the duration of a test.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "profile/capture.h"
#include "profile/store.h"
#include "tests/testing/capture_file_fixture.h"

namespace quartz::profile::store_test {

using test_support::CaptureFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Plain SQL on the store's file, as a user's query would see it.
class Database {
 public:
  explicit Database(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      ADD_FAILURE() << path << ": " << sqlite3_errmsg(db_);
    }
  }
  ~Database() { EXPECT_EQ(sqlite3_close(db_), SQLITE_OK); }

  void exec(const std::string& sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << (error ? error : "?");
    }
    sqlite3_free(error);
  }
  // Every row, each column as text ("NULL" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    std::vector<std::vector<std::string>> result;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
      return result;
    }
    int step;
    while ((step = sqlite3_step(statement)) == SQLITE_ROW) {
      std::vector<std::string>& row = result.emplace_back();
      for (int i = 0; i < sqlite3_column_count(statement); ++i) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
        row.push_back(text ? text : "NULL");
      }
    }
    if (step != SQLITE_DONE) ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    sqlite3_finalize(statement);
    return result;
  }
  std::string value(const std::string& sql) {
    const auto result = rows(sql);
    return result.empty() || result[0].empty() ? "" : result[0][0];
  }
  // The store as versions before 5 kept it: each capture whole in runs.capture, no chunks
  // (no trace stored), no series; and no lock ids (version 6), labels or builds (version 7).
  void as_before_version_5() {
    exec("DROP TABLE labels; DROP TABLE run_builds");
    exec(
        "UPDATE runs SET capture = (SELECT bytes FROM chunks WHERE chunks.run_id = runs.id "
        "AND kind = 'capture' AND seq = 0)");
    exec("DROP TABLE chunks; ALTER TABLE runs DROP COLUMN capture_bytes; DROP TABLE run_series");
    exec("ALTER TABLE locks DROP COLUMN object_id");
  }
  std::vector<unsigned char> capture(int64_t run_id) {
    std::vector<unsigned char> bytes;
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(
        sqlite3_prepare_v2(db_, "SELECT bytes FROM chunks WHERE run_id = ? AND kind = 'capture'",
                           -1, &statement, nullptr),
        SQLITE_OK);
    EXPECT_EQ(sqlite3_bind_int64(statement, 1, run_id), SQLITE_OK);
    if (sqlite3_step(statement) == SQLITE_ROW) {
      const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(statement, 0));
      bytes.assign(data, data + sqlite3_column_bytes(statement, 0));
    }
    sqlite3_finalize(statement);
    return bytes;
  }
  void set_capture(int64_t run_id, const std::vector<unsigned char>& bytes) {
    sqlite3_stmt* statement = nullptr;
    ASSERT_EQ(
        sqlite3_prepare_v2(db_, "UPDATE chunks SET bytes = ? WHERE run_id = ? AND kind = 'capture'",
                           -1, &statement, nullptr),
        SQLITE_OK);
    EXPECT_EQ(sqlite3_bind_blob(statement, 1, bytes.data(), static_cast<int>(bytes.size()),
                                SQLITE_TRANSIENT),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_bind_int64(statement, 2, run_id), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(statement), SQLITE_DONE);
    sqlite3_finalize(statement);
  }

 private:
  sqlite3* db_ = nullptr;
};

// A run as the CLI would import it: the capture's bytes, their parse, symbols added.
struct Imported {
  std::vector<unsigned char> bytes;
  Run run;
};

// The sample run as process `pid` made it: a capture of its own.
inline Run sample_run_of(int pid) {
  Run run = test_support::sample_run();
  run.info[capture::run_keys::kPid] = std::to_string(pid);
  return run;
}

inline Imported imported(const Run& source, bool with_symbols = true) {
  Imported i;
  i.bytes = CaptureFile::of(source).bytes();
  i.run = parse_capture(i.bytes, "import.qz");
  if (with_symbols) i.run.symbols = test_support::sample_symbols();
  return i;
}

// The sample run made on `processors` processors.
inline Run run_on(uint32_t processors, bool final = true) {
  Run run = test_support::sample_run();
  run.processors = processors;
  run.final = final;
  for (ThreadInfo& t : run.threads) t.record = test_support::full_record(processors, 4, t.index);
  for (ObjectInfo& o : run.objects) o.record = test_support::full_record(processors, 4, 2);
  for (ProcedureInfo& p : run.procedures) p.record = test_support::full_record(processors, 4, 3);
  const std::vector<ContextInfo> contexts = std::move(run.contexts);
  run.contexts = {};
  run.context_bins = {};
  for (const ContextInfo& c : contexts)
    run.add_context(c, test_support::context_record(processors, 4));
  run.program = test_support::full_record(processors, 4, 5);
  run.info[capture::run_keys::kElapsedNs] = std::to_string(8'000'000'000 / processors);
  return run;
}

inline std::string store_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const StoreError& e) {
    return e.what();
  }
  return "";
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "quartz_store_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/experiments.qdb";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void write_file(const std::string& path, const std::string& content) {
    std::ofstream(path, std::ios::binary) << content;
  }
  std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  std::string dir_, path_;
};

// Runs in UTC, so that "started" is known.
class UtcTime {
 public:
  UtcTime() {
    if (const char* tz = getenv("TZ")) saved_ = tz;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  ~UtcTime() {
    if (saved_) {
      setenv("TZ", saved_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  std::optional<std::string> saved_;
};

}  // namespace quartz::profile::store_test
