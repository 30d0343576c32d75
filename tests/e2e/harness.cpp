#include "harness.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace quartz::test {

unsigned long long number(const Record& record, const std::string& key) {
  auto it = record.find(key);
  if (it == record.end()) {
    ADD_FAILURE() << "no field " << key;
    return 0;
  }
  return std::strtoull(it->second.c_str(), nullptr, 0);
}

namespace {
const Record* find_by(const std::vector<Record>& records, const std::string& key,
                      const std::string& value) {
  for (const Record& r : records) {
    auto it = r.find(key);
    if (it != r.end() && it->second == value) return &r;
  }
  return nullptr;
}
}  // namespace

const Record* Summary::object_named(const std::string& name) const {
  return find_by(objects, "name", name);
}
const Record* Summary::thread_named(const std::string& name) const {
  return find_by(threads, "name", name);
}
const Record* Summary::thread_index(int index) const {
  return find_by(threads, "index", std::to_string(index));
}
unsigned long long Summary::calls_of(const std::string& symbol) const {
  unsigned long long total = 0;
  for (const Record& r : procedures) {
    if (r.at("symbol") == symbol) total += number(r, "calls");
  }
  return total;
}
unsigned long long Summary::edge_calls(const std::string& caller,
                                       const std::string& callee) const {
  unsigned long long total = 0;
  for (const Record& r : edges) {
    if (r.at("caller_symbol") == caller && r.at("callee_symbol") == callee) {
      total += number(r, "calls");
    }
  }
  return total;
}

Summary read_summary(const std::string& path) {
  Summary s;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line != "quartz-summary 1") return s;
  s.present = true;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind, word;
    words >> kind;
    Record r;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) r[word.substr(0, eq)] = word.substr(eq + 1);
    }
    if (kind == "thread") s.threads.push_back(r);
    else if (kind == "object") s.objects.push_back(r);
    else if (kind == "edge") s.edges.push_back(r);
    else if (kind == "procedure") s.procedures.push_back(r);
    else if (kind == "process") s.process = r;
  }
  return s;
}

std::map<std::string, std::string> printed_values(const std::string& out) {
  std::map<std::string, std::string> values;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos && line.find(' ') == std::string::npos) {
      values[line.substr(0, eq)] = line.substr(eq + 1);
    }
  }
  return values;
}

CommandResult run_command(const std::vector<std::string>& argv_in,
                          const std::map<std::string, std::string>& env_in, int timeout_s,
                          void (*started)(int pid)) {
  CommandResult result;
  char out_template[] = "/tmp/quartz-e2e-out-XXXXXX";
  char err_template[] = "/tmp/quartz-e2e-err-XXXXXX";
  const int out_fd = mkstemp(out_template);
  const int err_fd = mkstemp(err_template);
  std::vector<std::string> argv_storage = argv_in;
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (env_in.count(key) || key == "LD_PRELOAD" || key.rfind("QUARTZ_", 0) == 0) continue;
    env_storage.push_back(entry);
  }
  for (const auto& [k, v] : env_in) env_storage.push_back(k + "=" + v);

  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    setpgid(0, 0);
    std::vector<char*> argv, envp;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  if (started) started(pid);
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << argv_in[0] << " timed out (deadlock?)";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  auto slurp = [](const char* path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  result.out = slurp(out_template);
  result.err = slurp(err_template);
  close(out_fd);
  close(err_fd);
  unlink(out_template);
  unlink(err_template);
  return result;
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const RunOptions& options) {
  RunResult result;
  char summary_template[] = "/tmp/quartz-e2e-XXXXXX";
  close(mkstemp(summary_template));
  result.summary_path = summary_template;
  std::vector<std::string> argv{std::string(QUARTZ_E2E_DIR) + "/" + program};
  argv.insert(argv.end(), args.begin(), args.end());
  std::map<std::string, std::string> env = options.env;
  if (options.preload) env["LD_PRELOAD"] = QUARTZ_LIBRARY;
  env["QUARTZ_SUMMARY"] = result.summary_path;
  const CommandResult r = run_command(argv, env, options.timeout_s);
  result.exit_code = r.exit_code;
  result.signal = r.signal;
  result.out = r.out;
  result.summary = read_summary(result.summary_path);
  unlink(result.summary_path.c_str());
  return result;
}

void ScratchTest::SetUp() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  dir = std::filesystem::temp_directory_path() /
        ("quartz-" + std::string(test->test_suite_name()) + "-" + std::to_string(getpid()) + "-" + test->name());
  std::filesystem::create_directories(dir);
  store = (dir / "runs.db").string();
}

void ScratchTest::TearDown() {
  std::error_code error;
  std::filesystem::remove_all(dir, error);
}

}  // namespace quartz::test
