// Runs a test program under the Quartz runtime and parses what the runtime saw (its
// QUARTZ_SUMMARY output, see runtime/summary.h).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace quartz::test {

using Record = std::map<std::string, std::string>;

struct Summary {
  std::vector<Record> threads, objects, edges, procedures;
  Record process;
  bool present = false;

  const Record* object_named(const std::string& name) const;
  const Record* thread_named(const std::string& name) const;
  const Record* thread_index(int index) const;
  // Calls of the procedure whose exported symbol is `symbol` (0 when absent).
  unsigned long long calls_of(const std::string& symbol) const;
  // Calls along the edge caller -> callee, by symbol ("<root>" for the thread's root).
  unsigned long long edge_calls(const std::string& caller, const std::string& callee) const;
};

unsigned long long number(const Record& record, const std::string& key);

struct RunResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  Summary summary;
  std::string summary_path;
};

struct RunOptions {
  bool preload = true;
  std::map<std::string, std::string> env;
  int timeout_s = 120;
};

struct CommandResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
};

// Runs argv[0] (a path) with `argv` and `env` added to (or replacing) this process's
// environment. Calls `started(pid)` once the process runs, if given. Fails the current test
// on timeout.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {}, int timeout_s = 120,
                          void (*started)(int pid) = nullptr);

// Runs build/tests/e2e/<program> with `args`. Fails the current test on timeout.
RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const RunOptions& options = {});
Summary read_summary(const std::string& path);

// A test with a directory of its own (removed afterwards) and an experiment store in it.
class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  std::filesystem::path dir;
  std::string store;
};

// Values the program printed as "key=value" lines on stdout.
std::map<std::string, std::string> printed_values(const std::string& out);

}  // namespace quartz::test
