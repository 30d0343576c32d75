// Runs a test program under the Quartz runtime and reads what the runtime saw: the capture
// it wrote, through the offline reader users' tools use.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::test {

// The build's tools and samples (paths compiled in by tests/e2e/CMakeLists.txt).
inline const std::string kQuartz = std::string(QUARTZ_BIN_DIR) + "/quartz";
inline std::string sample(const std::string& name) {
  return std::string(QUARTZ_SAMPLES_DIR) + "/" + name;
}

// Bounds on sampled figures are the issues' in the release build. Under a sanitizer the
// sampler, which shares the processors here, runs several times slower and its snapshots
// preempt the program more: those runs check the same figures within twice the bound.
constexpr double kSlack = QUARTZ_SANITIZED ? 2.0 : 1.0;

// What the runtime saw, as users get it: the run's capture, read and symbolized by the
// offline reader (profile/), with look-ups by the names the test programs use.
struct Capture {
  profile::Run run;

  const profile::ObjectInfo* object_named(const std::string& name) const;
  const profile::ThreadInfo* thread_named(const std::string& name) const;
  const profile::ThreadInfo* thread_index(uint32_t index) const;
  // Calls of the procedure whose function name is `function` (0 when absent).
  uint64_t calls_of(const std::string& function) const;
  // Calls along the edge caller -> callee, by function name ("<root>" for the thread's root).
  uint64_t edge_calls(const std::string& caller, const std::string& callee) const;
  // The function a thread started in (its start routine), "" when unknown.
  std::string start_of(const profile::ThreadInfo& thread) const;
  // A run-section value (capture_format.h run_keys) as a number.
  uint64_t info(const std::string& key) const;
};

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::optional<Capture> capture;  // none when the run wrote no capture
  std::string capture_path;
};

struct RunOptions {
  bool preload = true;
  bool capture = true;
  std::map<std::string, std::string> env;
  int timeout_s = 120;
};

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
  long max_rss_kb = 0;  // its peak resident memory, by the kernel's accounting (wait4)
};

// How a process is started: its arguments and environment (added to this process's,
// without LD_PRELOAD and QUARTZ_*), and the conditions it inherits.
struct Launch {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  long long file_size_limit = -1;  // bytes (RLIMIT_FSIZE, as `ulimit -f`); -1: unlimited
  bool broken_stderr = false;      // stderr is a pipe whose reader has gone
  bool ignore_sigint = false;      // started with SIGINT ignored (as by nohup or `cmd &`)
  std::string cwd;
  int timeout_s = 60;
  std::function<void(pid_t)> while_running;  // runs in the test once the process started
};

// A launch of `argv` with nothing else asked.
inline Launch command(std::vector<std::string> argv) {
  Launch l;
  l.argv = std::move(argv);
  return l;
}

// Starts `l`, waits for it (failing the current test on timeout, and killing it) and returns
// what it printed and how it ended.
CommandResult launch(const Launch& l);

// Runs argv[0] (a path) with `argv` and `env` added to (or replacing) this process's
// environment. Calls `started(pid)` once the process runs, if given. Fails the current test
// on timeout.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {}, int timeout_s = 120,
                          void (*started)(int pid) = nullptr);

// Runs build/tests/e2e/<program> with `args`, writing its capture to a scratch file
// (QUARTZ_OUTPUT) unless options.capture is false, with every call counted (no overhead
// budget unless options.env sets QUARTZ_BUDGET). Fails the current test on timeout.
RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const RunOptions& options = {});
// The capture at `path`, symbolized; none when there is no file. Fails the current test
// when the file cannot be read.
std::optional<Capture> read_capture_file(const std::string& path);

// A test with a directory of its own (removed afterwards) and an experiment store in it.
// CPU-bound processes, `count` of them (free to move) or one per processor the test may use
// (0, each held to its processor), until stopped: a busy machine made by the test itself.
// stop() gives their processor time from the kernel's accounting of them (wait4) and how long they
// lived.
class Competitors {
 public:
  explicit Competitors(int count = 0);
  ~Competitors() { stop(); }
  Competitors(const Competitors&) = delete;
  Competitors& operator=(const Competitors&) = delete;
  void stop();
  double cpu_s() const { return cpu_s_; }
  double life_s() const { return life_s_; }

 private:
  std::chrono::steady_clock::time_point started_;
  std::vector<pid_t> pids_;
  double cpu_s_ = 0, life_s_ = 0;
};

class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::filesystem::path dir;
  std::string store;
};

// Values the program printed as "key=value" lines on stdout.
std::map<std::string, std::string> printed_values(const std::string& out);

// A new, empty database on the tests' PostgreSQL server (scripts/pg-server.sh): the one
// ctest started for them (QUARTZ_TEST_PG_DIR), else one this process starts, and stops at
// its exit. The URIs of its writer (who owns it), of a role that may only read, and of the
// writer through the server's connection pooler (PgBouncer in session mode).
struct ServerDatabase {
  std::string writer, reader, pooled;
};
ServerDatabase server_database();

}  // namespace quartz::test
