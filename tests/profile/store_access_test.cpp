// Who may use a store and how: the same capture refused twice, stores read without being
// changed, read-only stores read and refused writes, locked stores waited for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "profile/store.h"
#include "tests/testing/store_fixture.h"

namespace quartz::profile {
namespace {

using namespace store_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// "The same capture" is the same bytes: refused with the run that holds them; another
// capture of the same program is a run of its own.
TEST_F(StoreTest, TheSameCaptureTwiceIsRefusedWithItsRun) {
  const Imported run = imported(sample_run_of(1));
  Store store(path_);
  EXPECT_EQ(store.add_run(run.bytes, run.run, "a.qcap", ""), 1);
  const Imported other = imported(sample_run_of(2));
  EXPECT_EQ(store.add_run(other.bytes, other.run, "b.qcap", ""), 2);
  try {
    Store(path_).add_run(run.bytes, run.run, "copy-of-a.qcap", "");
    ADD_FAILURE() << "stored twice";
  } catch (const DuplicateCaptureError& e) {
    EXPECT_EQ(e.existing_run, 1);
    EXPECT_EQ(std::string(e.what()), path_ + ": this capture is already run 1");
  }
  Database db(path_);
  EXPECT_EQ(db.value("SELECT count(*) FROM runs"), "2");
  EXPECT_EQ(db.value("SELECT count(*) FROM symbols WHERE run_id > 2"), "0");
}

// A version-2 store (no CRC column) learns the CRCs of the captures it already holds.
TEST_F(StoreTest, UpgradeFromVersionTwoKnowsTheCapturesStoredBefore) {
  const Imported run = imported(sample_run_of(1));
  {
    Store store(path_);
    store.add_run(run.bytes, run.run, "", "");
  }
  {
    Database db(path_);  // as version 2 left it
    db.as_before_version_5();
    db.exec("DROP TABLE run_links");
    db.exec("DROP INDEX runs_by_capture_crc32; ALTER TABLE runs DROP COLUMN capture_crc32");
    db.exec("UPDATE meta SET value = 2 WHERE key = 'schema_version'");
  }
  // Read-only, it stays as it is, and has no links.
  EXPECT_EQ(Store(path_, StoreAccess::read_only).list().size(), 1u);
  EXPECT_EQ(Store(path_, StoreAccess::read_only).parent_run(1), std::nullopt);
  EXPECT_EQ(Database(path_).value("SELECT value FROM meta WHERE key = 'schema_version'"), "2");

  Store store(path_);
  EXPECT_THROW(store.add_run(run.bytes, run.run, "", ""), DuplicateCaptureError);
  Database db(path_);
  EXPECT_EQ(db.value("SELECT value FROM meta WHERE key = 'schema_version'"), "7");
  EXPECT_EQ(db.value("SELECT count(*) FROM runs WHERE capture_crc32 IS NULL"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM run_links"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM run_series"), "0");
  EXPECT_EQ(store.load(1).threads.size(), run.run.threads.size()) << "its capture stays whole";
}

// Reading creates nothing and changes nothing: no store where there was none, no schema in
// an empty file, no upgrade of a version-1 store.
TEST_F(StoreTest, ReadingChangesNothing) {
  const std::string missing = dir_ + "/missing.qdb";
  EXPECT_THAT(store_error([&] { Store store(missing, StoreAccess::read_only); }),
              StartsWith(missing + ": cannot open: "));
  EXPECT_FALSE(std::filesystem::exists(missing));

  const std::string empty = dir_ + "/empty.qdb";
  write_file(empty, "");
  EXPECT_EQ(store_error([&] { Store store(empty, StoreAccess::read_only); }),
            empty +
                ": no Quartz store yet (the first 'quartz run' or 'quartz import' into it "
                "makes one)");
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);

  {
    Store store(path_);
    const Imported run = imported(sample_run_of(1));
    store.add_run(run.bytes, run.run, "", "");
  }
  {
    Database db(path_);
    db.exec("UPDATE meta SET value = 1 WHERE key = 'schema_version'");
  }
  EXPECT_EQ(store_error([&] { Store store(path_, StoreAccess::read_only); }),
            path_ +
                ": store schema version 1: open it once for writing (quartz import) to "
                "upgrade it");
  EXPECT_EQ(Database(path_).value("SELECT value FROM meta WHERE key = 'schema_version'"), "1");
}

// A store on a read-only file system (a read-only bind mount of its directory): everything
// reads, traces included; writing says why it cannot.
class ReadOnlyStoreTest : public StoreTest {
 protected:
  void TearDown() override {
    if (!mounted_.empty()) umount2(mounted_.c_str(), MNT_DETACH);
    StoreTest::TearDown();
  }
  // The directory `from` seen read-only at dir_/ro; "" when this process may not mount.
  std::string read_only_view(const std::string& from) {
    const std::string at = dir_ + "/ro";
    std::filesystem::create_directory(at);
    if (mount(from.c_str(), at.c_str(), nullptr, MS_BIND, nullptr) != 0) return "";
    mounted_ = at;
    if (mount(nullptr, at.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
      return "";
    }
    return at;
  }
  std::string mounted_;
};

TEST_F(ReadOnlyStoreTest, ReadsAndRefusesToWrite) {
  const std::string source = dir_ + "/rw";
  std::filesystem::create_directory(source);
  const Imported run = imported(sample_run_of(1));
  const std::string trace = dir_ + "/run.qcap.trace";
  write_file(trace, "trace bytes");
  {
    Store store(source + "/runs.qdb");
    const int64_t id = store.add_run(run.bytes, run.run, "", "");
    store.add_trace(id, trace);
    store.add_prediction(id, "--cores 1", "{}");
  }
  const std::string ro = read_only_view(source);
  if (ro.empty()) GTEST_SKIP() << "cannot bind-mount read-only here (needs root)";
  const std::string path = ro + "/runs.qdb";

  Store store(path, StoreAccess::read_only);
  ASSERT_EQ(store.list().size(), 1u);
  test_support::expect_same_run(run.run, store.load(1));
  EXPECT_EQ(store.predictions(1).size(), 1u);
  auto source_trace = store.open_trace(1);
  char bytes[64];
  const size_t n = source_trace->read(bytes, sizeof bytes);
  EXPECT_EQ(std::string(bytes, n), "trace bytes");

  try {
    Store writer(path);
    ADD_FAILURE() << "opened for writing";
  } catch (const ReadOnlyStoreError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": read-only (Read-only file system)");
  }
}

// A writer that finds the store locked says so once and waits for it, rather than failing.
TEST_F(StoreTest, ALockedStoreIsWaitedFor) {
  { Store created(path_); }
  const Imported run = imported(sample_run_of(1));
  Database holder(path_);
  holder.exec("BEGIN IMMEDIATE");
  std::atomic<bool> released{false};
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    released = true;
    holder.exec("COMMIT");
  });
  ::testing::internal::CaptureStderr();
  int64_t id = 0;
  {
    Store store(path_);
    id = store.add_run(run.bytes, run.run, "", "");
  }
  const bool waited_for_the_holder = released;
  const std::string said = ::testing::internal::GetCapturedStderr();
  release.join();
  EXPECT_EQ(id, 1);
  EXPECT_TRUE(waited_for_the_holder);
  EXPECT_EQ(said, "quartz: " + path_ + " is locked by another process; waiting for it\n");
}

// Two processes that make a new store at once (two `quartz run`s checking it before their
// programs start) both get it. Both switch it to WAL, each holding the shared lock the
// other's switch waits for, and SQLite answers one of them "locked" at once, without
// asking its busy handler. Truth: each process's own outcome, many times over.
TEST_F(StoreTest, TwoProcessesMakingANewStoreAtOnceBothGetIt) {
  int failures = 0;
  for (int round = 0; round < 40; ++round) {
    const std::string path = dir_ + "/new-" + std::to_string(round) + ".qdb";
    int go[2];
    ASSERT_EQ(pipe(go), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    auto open_store = [&] {
      char byte = 0;
      if (child == 0) {
        if (read(go[0], &byte, 1) != 1) return false;
      } else if (write(go[1], &byte, 1) != 1) {
        return false;
      }
      try {
        Store store(path);
        return true;
      } catch (const StoreError&) {
        return false;
      }
    };
    if (child == 0) _exit(open_store() ? 0 : 1);
    if (!open_store()) ++failures;
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
    close(go[0]);
    close(go[1]);
  }
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace quartz::profile
