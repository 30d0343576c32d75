#include "cli/child_process.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <iostream>
#include <iterator>

#include "cli/command_line.h"

extern char** environ;

namespace quartz::cli {
namespace {

// Signals sent to `quartz` that go on to the program, as with `timeout`.
constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
// What `quartz run` changes for itself and gives back to the program: it ignores SIGPIPE
// and SIGXFSZ so that its own failed writes become errors it reports.
constexpr int kChanged[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ};
static_assert(std::size(kChanged) == InheritedSignals::kChangedSignals);
volatile sig_atomic_t g_child = 0;

void forward_signal(int signal, siginfo_t* info, void*) {
  // A terminal's ^C, ^\ and hang-up go to its whole foreground group: the program has them.
  if (info->si_code == SI_KERNEL) return;
  const pid_t child = g_child;
  if (child > 0) kill(child, signal);
}

uint64_t realtime_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

int find_program(const std::string& name, std::string* path, std::string* reason) {
  auto check = [](const std::string& candidate, std::string* why) {
    struct stat st;
    if (stat(candidate.c_str(), &st) != 0) {
      *why = std::strerror(errno);
      return 127;
    }
    if (!S_ISREG(st.st_mode)) {
      *why = S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file";
      return 126;
    }
    if (access(candidate.c_str(), X_OK) != 0) {
      *why = std::strerror(errno);
      return 126;
    }
    return 0;
  };
  if (name.find('/') != std::string::npos) {
    *path = name;
    const int status = check(name, reason);
    if (status) *reason = "cannot execute '" + name + "': " + *reason;
    return status;
  }
  const char* search = std::getenv("PATH");
  std::string dirs = search ? search : "/usr/bin:/bin";
  int status = 127;
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    std::string dir =
        dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    std::string why;
    const int found = check(dir + "/" + name, &why);
    if (found == 0) {
      *path = dir + "/" + name;
      return 0;
    }
    if (found == 126 && status == 127) {  // execvp too reports the first one it could not run
      status = 126;
      *reason = "cannot execute '" + dir + "/" + name + "': " + why;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (status == 127) *reason = "cannot find program '" + name + "' in PATH";
  return status;
}

std::vector<std::string> child_environment(const RunOptions& o, const std::string& library,
                                           const std::string& status_path,
                                           const std::string& shared_path) {
  std::vector<std::string> env;
  std::string preload = library;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      preload += ":" + entry.substr(11);
    } else if (entry.rfind("QUARTZ_", 0) != 0) {  // the runtime's are in o.env
      env.push_back(entry);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  for (const auto& [k, v] : o.env) env.push_back(k + "=" + v);
  if (o.profile) env.push_back("QUARTZ_OUTPUT=" + o.output);
  if (!status_path.empty()) env.push_back("QUARTZ_STATUS=" + status_path);
  if (!shared_path.empty()) env.push_back("QUARTZ_SHARED_CAPTURE=" + shared_path);
  return env;
}

InheritedSignals::InheritedSignals() {
  pthread_sigmask(SIG_SETMASK, nullptr, &mask_);
  for (size_t i = 0; i < std::size(kChanged); ++i) sigaction(kChanged[i], nullptr, &actions_[i]);
}

void InheritedSignals::ignore_write_signals() const {
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN);
}

void InheritedSignals::forward() const {
  sigset_t forwarded;
  sigemptyset(&forwarded);
  for (int signal : kForwarded) sigaddset(&forwarded, signal);
  pthread_sigmask(SIG_BLOCK, &forwarded, nullptr);
  struct sigaction handler {};
  handler.sa_sigaction = forward_signal;
  handler.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&handler.sa_mask);
  for (int signal : kForwarded) sigaction(signal, &handler, nullptr);
}

void InheritedSignals::release() const {
  pthread_sigmask(SIG_SETMASK, &mask_, nullptr);
}

void InheritedSignals::restore_all() const {
  for (size_t i = 0; i < std::size(kChanged); ++i) sigaction(kChanged[i], &actions_[i], nullptr);
  pthread_sigmask(SIG_SETMASK, &mask_, nullptr);
}

void InheritedSignals::stop_forwarding() const {
  static_assert(kChanged[0] == kForwarded[0] && kChanged[3] == kForwarded[3]);
  for (size_t i = 0; i < std::size(kForwarded); ++i) sigaction(kChanged[i], &actions_[i], nullptr);
}

ChildEnd run_child(const std::string& program, const std::vector<std::string>& argv,
                   const std::vector<std::string>& env, const InheritedSignals& inherited,
                   const std::function<void()>& in_child) {
  std::vector<char*> argv_strings = exec_strings(argv), envp = exec_strings(env);
  int exec_error_pipe[2];  // closed by a successful exec; else carries its errno
  if (pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    throw UsageError(std::string("run: cannot make a pipe: ") + std::strerror(errno));
  }
  inherited.forward();
  const pid_t child = fork();
  if (child < 0) throw UsageError(std::string("run: cannot fork: ") + std::strerror(errno));
  if (child == 0) {
    in_child();
    inherited.restore_all();
    execve(program.c_str(), argv_strings.data(), envp.data());
    const int error = errno;
    ssize_t ignored = write(exec_error_pipe[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  g_child = child;
  inherited.release();
  close(exec_error_pipe[1]);
  int exec_error = 0;
  ssize_t got;
  while ((got = read(exec_error_pipe[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  close(exec_error_pipe[0]);
  ChildEnd end;
  while (waitpid(child, &end.status, 0) < 0 && errno == EINTR) {
  }
  end.end_realtime_ns = realtime_ns();
  g_child = 0;
  inherited.stop_forwarding();
  if (got == sizeof exec_error) end.exec_error = exec_error;
  return end;
}

void end_like(int status) {
  std::cout.flush();
  std::cerr.flush();
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    ::signal(signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
    raise(signal);
    _exit(128 + signal);
  }
  _exit(WEXITSTATUS(status));
}

}  // namespace quartz::cli
