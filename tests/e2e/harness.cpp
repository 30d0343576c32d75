#include "harness.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "profile/capture.h"
#include "profile/symbolize_run.h"

namespace quartz::test {

const profile::ObjectInfo* Capture::object_named(const std::string& name) const {
  for (const profile::ObjectInfo& o : run.objects) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

const profile::ThreadInfo* Capture::thread_named(const std::string& name) const {
  for (const profile::ThreadInfo& t : run.threads) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const profile::ThreadInfo* Capture::thread_index(uint32_t index) const {
  for (const profile::ThreadInfo& t : run.threads) {
    if (t.index == index) return &t;
  }
  return nullptr;
}

namespace {

// The threads' stacks of every process in process group `group` (a program that hangs and
// the children it forked), by gdb when it is installed: where it waits, for the failure.
std::string stacks_of_group(pid_t group) {
  if (access("/usr/bin/gdb", X_OK) != 0) return "(no gdb: no stacks)";
  std::string out;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    if (getpgid(std::stoi(name)) != group) continue;
    const std::string command = "timeout 20 /usr/bin/gdb -p " + name +
                                " -batch -nx -ex 'thread apply all bt 30' 2>/dev/null";
    out += "--- process " + name + "\n";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char line[512];
      while (fgets(line, sizeof line, pipe)) {
        if (line[0] == '#' || strncmp(line, "Thread", 6) == 0) out += line;
      }
      pclose(pipe);
    }
  }
  return out;
}

std::string function_at(const profile::Run& run, uint64_t address) {
  const auto it = run.symbols.find(address);
  return it == run.symbols.end() ? std::string() : it->second.function;
}
}  // namespace

uint64_t Capture::calls_of(const std::string& function) const {
  uint64_t total = 0;
  for (const profile::Edge& e : run.edges) {
    if (function_at(run, e.callee) == function) total += e.calls;
  }
  return total;
}

uint64_t Capture::edge_calls(const std::string& caller, const std::string& callee) const {
  uint64_t total = 0;
  for (const profile::Edge& e : run.edges) {
    const bool caller_matches =
        caller == "<root>" ? e.caller == 0 : function_at(run, e.caller) == caller;
    if (caller_matches && function_at(run, e.callee) == callee) total += e.calls;
  }
  return total;
}

std::string Capture::start_of(const profile::ThreadInfo& thread) const {
  return function_at(run, thread.start_routine);
}

uint64_t Capture::info(const std::string& key) const {
  const auto it = run.info.find(key);
  if (it == run.info.end()) {
    ADD_FAILURE() << "the capture has no " << key;
    return 0;
  }
  return std::strtoull(it->second.c_str(), nullptr, 10);
}

std::optional<Capture> read_capture_file(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error) || std::filesystem::file_size(path, error) == 0) {
    return std::nullopt;
  }
  try {
    Capture capture{profile::read_capture(path)};
    profile::symbolize_run(capture.run);
    return capture;
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return std::nullopt;
  }
}

namespace {

const std::string kPgServer = std::string(QUARTZ_SCRIPTS_DIR) + "/pg-server.sh";

// A server of this process's own, where ctest started none.
struct OwnServer {
  std::string dir;
  ~OwnServer() {
    if (!dir.empty()) {
      run_command({kPgServer, "stop", dir});
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }
};

std::string server_directory() {
  if (const char* dir = std::getenv("QUARTZ_TEST_PG_DIR")) return dir;
  static OwnServer own;
  if (own.dir.empty()) {
    char name[] = "/tmp/quartz-pg-XXXXXX";
    if (mkdtemp(name) == nullptr) ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    own.dir = name;
    const CommandResult started = run_command({kPgServer, "start", own.dir});
    EXPECT_EQ(started.exit_code, 0) << started.err;
  }
  return own.dir;
}

}  // namespace

ServerDatabase server_database() {
  static int made = 0;
  const std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(++made);
  const CommandResult r = run_command({kPgServer, "database", server_directory(), name});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ServerDatabase database;
  std::istringstream uris(r.out);
  std::getline(uris, database.writer);
  std::getline(uris, database.pooled);
  database.reader = database.writer;
  const auto at = database.reader.find("writer@");
  if (at != std::string::npos) database.reader.replace(at, 6, "reader");
  return database;
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

CommandResult launch(const Launch& l) {
  CommandResult result;
  char out_path[] = "/tmp/quartz-reliability-out-XXXXXX";
  char err_path[] = "/tmp/quartz-reliability-err-XXXXXX";
  const int out_fd = mkostemp(out_path, O_CLOEXEC);  // the program gets them as 1 and 2 only
  const int err_fd = mkostemp(err_path, O_CLOEXEC);
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string key = entry.substr(0, entry.find('='));
    if (l.env.count(key) || key == "LD_PRELOAD" || key.rfind("QUARTZ_", 0) == 0) continue;
    env_storage.push_back(entry);
  }
  for (const auto& [k, v] : l.env) env_storage.push_back(k + "=" + v);
  std::vector<std::string> argv_storage = l.argv;
  std::vector<char*> argv, envp;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  int broken[2] = {-1, -1};
  if (l.broken_stderr && pipe2(broken, O_CLOEXEC) == 0) close(broken[0]);

  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_fd, STDOUT_FILENO);
    dup2(l.broken_stderr ? broken[1] : err_fd, STDERR_FILENO);
    const rlimit no_core{0, 0};  // a program killed by SIGQUIT or SIGABRT leaves no core here
    setrlimit(RLIMIT_CORE, &no_core);
    if (l.file_size_limit >= 0) {
      const rlimit size{static_cast<rlim_t>(l.file_size_limit),
                        static_cast<rlim_t>(l.file_size_limit)};
      setrlimit(RLIMIT_FSIZE, &size);
    }
    signal(SIGINT, l.ignore_sigint ? SIG_IGN : SIG_DFL);
    if (!l.cwd.empty() && chdir(l.cwd.c_str()) != 0) _exit(126);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  if (broken[1] >= 0) close(broken[1]);
  if (l.while_running) l.while_running(pid);
  int status = 0;
  rusage usage{};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(l.timeout_s);
  while (wait4(pid, &status, WNOHANG, &usage) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      const std::string stacks = stacks_of_group(pid);
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << l.argv[0] << " timed out (blocked?)\n" << stacks;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.max_rss_kb = usage.ru_maxrss;
  auto slurp = [](const char* path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  result.out = slurp(out_path);
  result.err = slurp(err_path);
  close(out_fd);
  close(err_fd);
  unlink(out_path);
  unlink(err_path);
  return result;
}

CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env, int timeout_s,
                          void (*started)(int pid)) {
  Launch l;
  l.argv = argv;
  l.env = env;
  l.timeout_s = timeout_s;
  if (started) l.while_running = started;
  return launch(l);
}

RunResult run_program(const std::string& program, const std::vector<std::string>& args,
                      const RunOptions& options) {
  RunResult result;
  // An empty file of our own, which the runtime replaces (by rename) with its capture.
  char capture_template[] = "/tmp/quartz-e2e-XXXXXX";
  close(mkstemp(capture_template));
  result.capture_path = capture_template;
  // QUARTZ_TEST_PROGRAMS: the same programs built in another instrumentation mode.
  const char* programs = getenv("QUARTZ_TEST_PROGRAMS");
  std::vector<std::string> argv{std::string(programs ? programs : QUARTZ_E2E_DIR) + "/" + program};
  argv.insert(argv.end(), args.begin(), args.end());
  std::map<std::string, std::string> env = options.env;
  if (options.preload) env["LD_PRELOAD"] = QUARTZ_LIBRARY;
  if (options.capture) env["QUARTZ_OUTPUT"] = result.capture_path;
  // Every call counted, as these tests count them: the overhead budget's trials turn an
  // entry off for a while, and its calls then go uncounted (a loaded run tried
  // thread_lifecycle's short_life and counted 10,004 of its 10,200 calls). The budget is
  // tested through `quartz run` (Budget.*).
  env.emplace("QUARTZ_BUDGET", "0");
  const CommandResult r = run_command(argv, env, options.timeout_s);
  result.exit_code = r.exit_code;
  result.signal = r.signal;
  result.out = r.out;
  result.capture = read_capture_file(result.capture_path);
  unlink(result.capture_path.c_str());
  return result;
}

void ScratchTest::SetUp() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  dir = std::filesystem::temp_directory_path() /
        ("quartz-" + std::string(test->test_suite_name()) + "-" + std::to_string(getpid()) + "-" +
         test->name());
  std::filesystem::create_directories(dir);
  store = (dir / "runs.db").string();
}

void ScratchTest::TearDown() {
  std::error_code error;
  std::filesystem::remove_all(dir, error);
}

Competitors::Competitors(int count) : started_(std::chrono::steady_clock::now()) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> allowed;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
    }
  }
  const int processors = allowed.empty() ? 1 : static_cast<int>(allowed.size());
  for (int i = 0; i < (count > 0 ? count : processors); ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      alarm(60);  // never outlives a test that dies
      if (count == 0 && !allowed.empty()) {
        // One per processor, each on its own: the scheduler cannot gather them on some
        // processors and leave another to the program (a CI run did).
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(allowed[static_cast<size_t>(i) % allowed.size()], &one);
        sched_setaffinity(0, sizeof one, &one);
      }
      for (unsigned long spin = 0;; ++spin) asm volatile("" : "+r"(spin));  // not optimized out
    }
    if (pid > 0) pids_.push_back(pid);
  }
}

void Competitors::stop() {
  for (pid_t pid : pids_) kill(pid, SIGKILL);
  for (pid_t pid : pids_) {
    rusage usage{};
    if (wait4(pid, nullptr, 0, &usage) == pid) {
      cpu_s_ += usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    }
  }
  if (!pids_.empty()) {
    life_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  pids_.clear();
}

}  // namespace quartz::test
