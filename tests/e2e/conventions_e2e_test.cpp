// End-to-end: the command line's conventions and the store's behaviour where files fail.
// Each command's --help and `quartz --version` (the CMake project's version); every option
// the runtime reads (runtime/options.cpp, read here as text) is a `quartz run` flag, and a
// runtime variable in the environment reaches the program; a limit that drops data is named
// in the report with its flag; a read-only store is read, a locked one waited for; the same
// capture is stored once; a failed write to standard output is status 1.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/mount.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "harness.h"

namespace quartz::test {
namespace {

namespace fs = std::filesystem;

const std::string kManyLocks = std::string(QUARTZ_E2E_DIR) + "/many_locks";
const char* const kCommands[] = {"run", "report", "import", "list", "predict"};

// `quartz ARGS > /dev/full`, through a shell.
CommandResult into_full_device(const std::string& args) {
  return launch(command({"/bin/sh", "-c", "exec " + kQuartz + " " + args + " > /dev/full"}));
}

size_t occurrences(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

class ConventionsE2E : public ScratchTest {
 protected:
  void TearDown() override {
    if (!mounted_.empty()) umount2(mounted_.c_str(), MNT_DETACH);
    ScratchTest::TearDown();
  }

  // `quartz run` of many_locks with `flags`, stored; returns the run's text report.
  std::string report_of_many_locks(const std::vector<std::string>& flags, int locks,
                                   const std::map<std::string, std::string>& env = {},
                                   std::string* run_err = nullptr) {
    Launch l = command({kQuartz, "run", "--store", store});
    l.argv.insert(l.argv.end(), flags.begin(), flags.end());
    l.argv.insert(l.argv.end(), {"--", kManyLocks, std::to_string(locks)});
    l.env = env;
    const CommandResult run = launch(l);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(printed_values(run.out)["locks"], std::to_string(locks));
    if (run_err) *run_err = run.err;
    const CommandResult report = launch(command({kQuartz, "report", "--store", store}));
    EXPECT_EQ(report.exit_code, 0) << report.err;
    return report.out;
  }

  // A capture made by `quartz run --no-import`.
  std::string capture() {
    const std::string path = (dir / "run.qcap").string();
    const CommandResult r =
        launch(command({kQuartz, "run", "--no-import", "-q", "-o", path, "--", kManyLocks, "10"}));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return path;
  }

  // `from` seen through a read-only bind mount; "" when this process may not mount.
  std::string read_only_view(const fs::path& from) {
    const fs::path at = dir / "ro";
    fs::create_directories(at);
    if (mount(from.c_str(), at.c_str(), nullptr, MS_BIND, nullptr) != 0) return "";
    mounted_ = at.string();
    if (mount(nullptr, at.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
      return "";
    }
    return at.string();
  }

  std::string mounted_;
};

TEST_F(ConventionsE2E, EveryCommandHasHelpAndQuartzHasAVersion) {
  const CommandResult version = launch(command({kQuartz, "--version"}));
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, std::string("quartz ") + QUARTZ_PROJECT_VERSION + "\n");
  for (const char* name : kCommands) {
    SCOPED_TRACE(name);
    for (const char* flag : {"--help", "-h"}) {
      const CommandResult help = launch(command({kQuartz, name, flag}));
      EXPECT_EQ(help.exit_code, 0) << help.err;
      EXPECT_EQ(help.out.rfind(std::string("usage: quartz ") + name, 0), 0u) << help.out;
      EXPECT_EQ(help.err, "");
      EXPECT_EQ(help.out, launch(command({kQuartz, "help", name})).out);
    }
  }
  // After the program, --help is the program's.
  const CommandResult program =
      launch(command({kQuartz, "run", "--no-profile", "--", "/bin/echo", "x", "--help"}));
  EXPECT_EQ(program.out, "x --help\n");
}

// The runtime's variables, as its source reads them, each have a flag in `quartz run --help`.
TEST_F(ConventionsE2E, EveryRuntimeOptionIsARunFlag) {
  std::ifstream source(QUARTZ_RUNTIME_OPTIONS_SOURCE);
  std::stringstream text;
  text << source.rdbuf();
  const std::string code = text.str();
  std::set<std::string> variables;
  const std::regex variable("\"(QUARTZ_[A-Z0-9_]+)\"");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), variable);
       it != std::sregex_iterator(); ++it) {
    variables.insert((*it)[1]);
  }
  ASSERT_GE(variables.size(), 10u) << "runtime/options.cpp reads its variables another way";
  variables.erase("QUARTZ_OUTPUT");          // -o
  variables.erase("QUARTZ_PARENT_CAPTURE");  // set by the runtime for --follow-exec
  const std::string help = launch(command({kQuartz, "run", "--help"})).out;
  for (const std::string& v : variables) {
    EXPECT_NE(help.find("(" + v + ")"), std::string::npos) << v << " has no flag";
  }
}

// A program with more locks than the object table grows to (255 x 2^6 = 16,320 from 2^6):
// the report names the limit and the flag at its top, before any figure, and the flag
// raises it, over the variable in the environment. Two runs, as each of the 20,000 first
// acquisitions walks the stack (four runs took 114 s under ASan, against a 120 s timeout).
TEST_F(ConventionsE2E, ObjectLimitIsNamedWithItsFlagAndTheFlagRaisesIt) {
  std::string err;
  const std::string limited = report_of_many_locks({}, 20000, {{"QUARTZ_OBJECTS_LOG2", "6"}}, &err);
  const size_t limit_line = limited.find("LIMIT REACHED: object table, 3680 objects");
  EXPECT_NE(limit_line, std::string::npos) << limited;
  EXPECT_LT(limit_line, limited.find("Parallelism")) << "not at the top: " << limited;
  EXPECT_NE(limited.find("quartz run --objects-log2"), std::string::npos) << limited;
  EXPECT_NE(err.find("from the environment: QUARTZ_OBJECTS_LOG2=6"), std::string::npos) << err;

  const std::string raised =
      report_of_many_locks({"--objects-log2", "7"}, 20000, {{"QUARTZ_OBJECTS_LOG2", "6"}});
  EXPECT_EQ(raised.find("LIMIT REACHED"), std::string::npos) << raised;
}

// The table grows with the program: 100,000 locks, each taken once, are all registered
// from the default start of 2^14, none dropped (25,000 under a sanitizer, still past the
// first level: with each first acquisition's stack walk, 100,000 take 39 s to run and report
// in the ASan tree on a slow machine).
TEST_F(ConventionsE2E, TheObjectTableGrowsWithTheProgram) {
  const int locks = QUARTZ_SANITIZED ? 25000 : 100000;
  const std::string report = report_of_many_locks({}, locks);
  EXPECT_EQ(report.find("LIMIT REACHED"), std::string::npos) << report;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(store.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* count = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM locks WHERE kind = 'mutex'", -1, &count,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(count), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(count, 0), locks);
  sqlite3_finalize(count);
  sqlite3_close(db);
}

TEST_F(ConventionsE2E, StackDepthLimitIsNamedWithItsFlag) {
  const CommandResult run =
      launch(command({kQuartz, "run", "--store", store, "--stack-capacity", "64", "--",
                      std::string(QUARTZ_E2E_DIR) + "/stack_robustness", "deep"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string report = launch(command({kQuartz, "report", "--store", store})).out;
  // main + 2001 recursive frames, 64 kept (as the program's own depth says).
  EXPECT_NE(report.find("LIMIT REACHED: profile stack depth, 1938 entries"), std::string::npos)
      << report;
  EXPECT_NE(report.find("quartz run --stack-capacity"), std::string::npos) << report;
}

TEST_F(ConventionsE2E, TheSameCaptureIsStoredOnce) {
  const std::string path = capture();
  const CommandResult first = launch(command({kQuartz, "import", "--store", store, path}));
  EXPECT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "run 1: " + path + "\n");
  const fs::path copy = dir / "copy.qcap";
  fs::copy_file(path, copy);
  const CommandResult again = launch(command({kQuartz, "import", "--store", store, copy.string()}));
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.out, "");
  EXPECT_NE(again.err.find("is already run 1 of " + store), std::string::npos) << again.err;
  const CommandResult list = launch(command({kQuartz, "list", "--store", store}));
  EXPECT_EQ(occurrences(list.out, "many_locks"), 1u) << list.out;
}

TEST_F(ConventionsE2E, FailedWritesToStandardOutputAreStatusOne) {
  const std::string path = capture();
  ASSERT_EQ(launch(command({kQuartz, "import", "--store", store, path})).exit_code, 0);
  for (const std::string& args : std::vector<std::string>{
           "report --store " + store + " " + path, "report --json " + path, "list --store " + store,
           "help", "report --help", "import --store " + (dir / "other.db").string() + " " + path}) {
    SCOPED_TRACE(args);
    const CommandResult r = into_full_device(args);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(occurrences(r.err, "\n"), 1u) << r.err;
    EXPECT_NE(r.err.find("cannot write to standard output: No space left on device"),
              std::string::npos)
        << r.err;
  }
}

// A store on a read-only file system is read by list, report and predict --no-save;
// predict still answers; what would write it says why it cannot.
TEST_F(ConventionsE2E, AReadOnlyStoreIsRead) {
  const fs::path writable = dir / "rw";
  fs::create_directories(writable);
  const std::string source_store = (writable / "runs.db").string();
  const CommandResult run =
      launch(command({kQuartz, "run", "--store", source_store, "--trace", "--", kManyLocks, "10"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string ro = read_only_view(writable);
  if (ro.empty()) GTEST_SKIP() << "cannot bind-mount read-only here (needs root)";
  const std::string ro_store = ro + "/runs.db";

  const CommandResult list = launch(command({kQuartz, "list", "--store", ro_store}));
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_EQ(occurrences(list.out, "many_locks"), 1u) << list.out;
  const CommandResult report = launch(command({kQuartz, "report", "--store", ro_store, "1"}));
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("Quartz profile of run 1"), std::string::npos);
  const CommandResult predict =
      launch(command({kQuartz, "predict", "--store", ro_store, "--no-save", "--cores", "1"}));
  EXPECT_EQ(predict.exit_code, 0) << predict.err;
  EXPECT_EQ(predict.err, "");
  const CommandResult saving =
      launch(command({kQuartz, "predict", "--store", ro_store, "--cores", "1"}));
  EXPECT_EQ(saving.exit_code, 0) << saving.err;
  const auto first_line = [](const std::string& text) { return text.substr(0, text.find('\n')); };
  EXPECT_EQ(first_line(saving.out), first_line(predict.out));
  EXPECT_NE(saving.out.find("Best groupings onto 1 processor"), std::string::npos) << saving.out;
  EXPECT_NE(saving.err.find("not stored with the run: " + ro_store + ": read-only"),
            std::string::npos)
      << saving.err;

  const CommandResult refused =
      launch(command({kQuartz, "run", "--store", ro_store, "--", kManyLocks, "1"}));
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "") << "the program ran";
  EXPECT_NE(refused.err.find(ro_store + ": read-only (Read-only file system)"), std::string::npos)
      << refused.err;
}

// Another process holds the store's write lock (an SQLite transaction of its own): the
// import says it waits, once, and stores the run when the lock is released.
TEST_F(ConventionsE2E, ALockedStoreIsWaitedFor) {
  ASSERT_EQ(launch(command({kQuartz, "import", "--store", store, capture()})).exit_code, 0);
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(store.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const fs::path other = dir / "other.qcap";
  const CommandResult second_capture = launch(
      command({kQuartz, "run", "--no-import", "-q", "-o", other.string(), "--", kManyLocks, "20"}));
  ASSERT_EQ(second_capture.exit_code, 0);
  Launch import = command({kQuartz, "import", "--store", store, other.string()});
  import.while_running = [&](pid_t) { std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr);
};
const CommandResult r = launch(import);
sqlite3_close(holder);
EXPECT_EQ(r.exit_code, 0) << r.err;
EXPECT_EQ(r.out, "run 2: " + other.string() + "\n");
EXPECT_EQ(r.err, "quartz: " + store + " is locked by another process; waiting for it\n");
}  // namespace

}  // namespace quartz::test
}  // namespace quartz::test
