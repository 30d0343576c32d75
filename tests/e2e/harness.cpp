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

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const RunOptions& options) {
  RunResult result;
  const std::string dir = QUARTZ_E2E_DIR;
  char summary_template[] = "/tmp/quartz-e2e-XXXXXX";
  const int summary_fd = mkstemp(summary_template);
  close(summary_fd);
  result.summary_path = summary_template;
  char out_template[] = "/tmp/quartz-e2e-out-XXXXXX";
  const int out_fd = mkstemp(out_template);

  std::vector<std::string> argv_storage{dir + "/" + program};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0 && std::strncmp(*e, "QUARTZ_", 7) != 0) {
      env_storage.emplace_back(*e);
    }
  }
  if (options.preload) env_storage.push_back(std::string("LD_PRELOAD=") + QUARTZ_LIBRARY);
  env_storage.push_back("QUARTZ_SUMMARY=" + result.summary_path);
  for (const auto& [k, v] : options.env) env_storage.push_back(k + "=" + v);

  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, STDOUT_FILENO);
    std::vector<char*> argv, envp;
    for (auto& a : argv_storage) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.timeout_s);
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << program << " timed out (deadlock?)";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  std::ifstream out(out_template);
  std::stringstream text;
  text << out.rdbuf();
  result.out = text.str();
  close(out_fd);
  unlink(out_template);
  result.summary = read_summary(result.summary_path);
  unlink(result.summary_path.c_str());
  return result;
}

}  // namespace quartz::test
