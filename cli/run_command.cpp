// `quartz run`: preloads the runtime into a program, lets it sample, imports the capture.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>

#include "cli/baseline_run.h"
#include "cli/capture_rescue.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/run_family.h"
#include "cli/run_options.h"
#include "format/capture_format.h"
#include "profile/capture.h"
#include "profile/store.h"

extern char** environ;

namespace quartz::cli {
namespace {

// Where execvp would find the program. Fills `reason` and returns 127 (not found) or 126
// (found, cannot be executed) as a shell would; 0 when found.
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

// Where captures go when -o is not given: quartz-captures/ next to the store, or, when that
// cannot be written (a read-only directory), $XDG_CACHE_HOME/quartz (~/.cache/quartz).
std::filesystem::path capture_directory(const RunOptions& o) {
  const std::filesystem::path store(o.store);
  const auto beside_store =
      (store.has_parent_path() ? store.parent_path() : std::filesystem::path(".")) /
      "quartz-captures";
  std::error_code error;
  std::filesystem::create_directories(beside_store, error);
  if (!error && access(beside_store.c_str(), W_OK) == 0) return beside_store;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path fallback;
  if (cache && *cache == '/') {
    fallback = std::filesystem::path(cache) / "quartz";
  } else if (home && *home) {
    fallback = std::filesystem::path(home) / ".cache" / "quartz";
  } else {
    throw UsageError("run: cannot write " + beside_store.string() + " and no $HOME: give -o");
  }
  std::error_code fallback_error;
  std::filesystem::create_directories(fallback, fallback_error);
  if (fallback_error || access(fallback.c_str(), W_OK) != 0) {
    throw UsageError("run: cannot write " + beside_store.string() + " nor " + fallback.string() +
                     ": give -o");
  }
  return fallback;
}

std::string default_output(const RunOptions& o) {
  const std::filesystem::path dir = capture_directory(o);
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  const std::string name = std::filesystem::path(o.program.front()).filename().string();
  return (dir / (name + "-" + stamp + "-" + std::to_string(getpid()) + ".qcap")).string();
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

// The capture path, held for this run: a lock on `<capture>.lock` (released if we die)
// keeps a concurrent run given the same -o from writing the same files; that run takes
// the next free `<stem>-N<ext>` instead.
class OutputClaim {
 public:
  explicit OutputClaim(std::string* output) {
    const std::filesystem::path wanted(*output);
    for (int n = 1; n <= 100; ++n) {
      std::filesystem::path candidate = wanted;
      if (n > 1) {
        candidate.replace_filename(wanted.stem().string() + "-" + std::to_string(n) +
                                   wanted.extension().string());
      }
      if (lock(candidate.string() + ".lock")) {
        if (n > 1) {
          std::cerr << "quartz: run: " << *output << " is being written by another run; this run's "
                    << "capture is " << candidate.string() << "\n";
        }
        *output = candidate.string();
        return;
      }
    }
    throw UsageError("run: " + *output + " and its alternatives are all in use by other runs");
  }
  ~OutputClaim() {
    if (fd_ < 0) return;
    unlink(lock_path_.c_str());
    close(fd_);
  }
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

 private:
  bool lock(const std::string& path) {
    for (;;) {
      const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
      // A run that cannot create files there (read-only, missing) cannot clobber another
      // either: it goes on, and the runtime's error is reported when it ends.
      if (fd < 0) return true;
      if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return false;
      }
      // The holder before us may have removed the file between our open and our lock.
      struct stat held, named;
      if (fstat(fd, &held) == 0 && stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
          held.st_dev == named.st_dev) {
        fd_ = fd;
        lock_path_ = path;
        return true;
      }
      close(fd);
    }
  }

  int fd_ = -1;
  std::string lock_path_;
};

// What the runtime said about the run (runtime/safe_file.cpp writes it): a file made here,
// of the size the runtime rewrites in place, so that even a full disk takes its news.
struct RuntimeStatus {
  bool final_written = false;              // the capture written at exit
  int capture_error = 0, trace_error = 0;  // errno of the last failed write, 0 if none
};

class StatusFile {
 public:
  StatusFile() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/quartz-run-XXXXXX";
    const int fd = mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) return;  // the run goes on; its diagnosis will be vaguer
    const std::string blank(255, ' ');
    const bool written = write(fd, (blank + "\n").data(), 256) == 256;
    close(fd);
    if (written) {
      path_ = pattern;
    } else {
      unlink(pattern.c_str());
    }
  }
  ~StatusFile() {
    if (!path_.empty()) unlink(path_.c_str());
  }
  StatusFile(const StatusFile&) = delete;
  StatusFile& operator=(const StatusFile&) = delete;

  const std::string& path() const { return path_; }
  // False when the runtime never wrote it: it did not start in the program.
  bool read(RuntimeStatus* status) const {
    std::ifstream in(path_);
    std::string word;
    if (!(in >> word) || word != "quartz-status") return false;
    while (in >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) continue;
      const std::string key = word.substr(0, eq);
      const long long value = std::strtoll(word.c_str() + eq + 1, nullptr, 10);
      if (key == "final") status->final_written = value != 0;
      if (key == "capture_error") status->capture_error = static_cast<int>(value);
      if (key == "trace_error") status->trace_error = static_cast<int>(value);
    }
    return true;
  }

 private:
  std::string path_;
};

std::string error_text(int error) {
  if (error < 0) return "not a regular file";
  return std::string(std::strerror(error)) + " (errno " + std::to_string(error) +
         (error == EFBIG ? "; past the file-size limit, ulimit -f)" : ")");
}

// Signals sent to `quartz` that go on to the program, as with `timeout`.
constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
// What `quartz run` changes for itself and gives back to the program: it ignores SIGPIPE
// and SIGXFSZ so that its own failed writes become errors it reports.
constexpr int kChanged[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ};
volatile sig_atomic_t g_child = 0;

void forward_signal(int signal, siginfo_t* info, void*) {
  // A terminal's ^C, ^\ and hang-up go to its whole foreground group: the program has them.
  if (info->si_code == SI_KERNEL) return;
  const pid_t child = g_child;
  if (child > 0) kill(child, signal);
}

// The dispositions and mask `quartz` was started with; the program gets them back.
class InheritedSignals {
 public:
  InheritedSignals() {
    pthread_sigmask(SIG_SETMASK, nullptr, &mask_);
    for (size_t i = 0; i < std::size(kChanged); ++i) sigaction(kChanged[i], nullptr, &actions_[i]);
  }
  // Ignores SIGPIPE and SIGXFSZ: a failed write of ours is an error we report, not our end.
  void ignore_write_signals() const {
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
  }
  // Forwards kForwarded, blocked until `release` so that none is lost before the
  // program's pid is known.
  void forward() const {
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
  void release() const { pthread_sigmask(SIG_SETMASK, &mask_, nullptr); }
  // In the child, before exec: everything as `quartz` found it.
  void restore_all() const {
    for (size_t i = 0; i < std::size(kChanged); ++i) sigaction(kChanged[i], &actions_[i], nullptr);
    pthread_sigmask(SIG_SETMASK, &mask_, nullptr);
  }
  // Once the program has ended: signals stop `quartz` as they would have without it.
  void stop_forwarding() const {
    static_assert(kChanged[0] == kForwarded[0] && kChanged[3] == kForwarded[3]);
    for (size_t i = 0; i < std::size(kForwarded); ++i)
      sigaction(kChanged[i], &actions_[i], nullptr);
  }

 private:
  sigset_t mask_;
  struct sigaction actions_[std::size(kChanged)];
};

// Ends `quartz` the way the program ended, so that a shell sees what it would have seen
// without us (as `timeout` does); no core of ours replaces the program's.
[[noreturn]] void end_like(int status) {
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

std::string describe_end(int status) {
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// Writes the capture the program last published to `path` (through `<path>.tmp`, as the
// runtime does), sealed: the runtime leaves that to us. False, with the reason, when it
// cannot.
bool write_published(const CaptureRescue::Published& capture, const std::string& path,
                     std::string* error) {
  capture::seal_capture(capture.data, capture.bytes);
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(capture.data),
              static_cast<std::streamsize>(capture.bytes));
    out.close();
    if (!out) {
      *error = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    *error = std::strerror(errno);
    return false;
  }
  return true;
}

uint64_t realtime_ns() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1000000000ull + static_cast<uint64_t>(now.tv_nsec);
}

// How much of the run's end the capture at `path` leaves out: the program ended at
// `end_realtime_ns` (-1 when the capture cannot be read).
double uncovered_ms(const std::string& path, uint64_t end_realtime_ns) {
  try {
    const profile::Run run = profile::read_capture(path);
    const double covered_ns =
        run.number(capture::run_keys::kStartRealtimeNs) + run.number(capture::run_keys::kElapsedNs);
    return std::max(0.0, (static_cast<double>(end_realtime_ns) - covered_ns) * 1e-6);
  } catch (const std::exception&) {
    return -1;
  }
}

// Says what became of the capture and why, from the program's end, the runtime's status
// and what it published. True when there is a capture to store.
bool explain_capture(const RunOptions& o, int status, uint64_t end_realtime_ns,
                     const StatusFile& status_file, const CaptureRescue& rescue) {
  const bool known = !status_file.path().empty();
  RuntimeStatus runtime;
  const bool started = known && status_file.read(&runtime);
  std::error_code error;
  bool exists = std::filesystem::exists(o.output, error);
  const std::string checkpoint_ms =
      o.env.count("QUARTZ_CHECKPOINT_MS") ? o.env.at("QUARTZ_CHECKPOINT_MS") : "1000";
  if (runtime.trace_error) {
    std::cerr << "quartz: run: the trace " << o.output << ".trace is cut short: the runtime could "
              << "not write it: " << error_text(runtime.trace_error) << "\n";
  }
  if (runtime.final_written) {
    // abort, std::terminate: the capture is whole, but the end is worth saying.
    if (WIFSIGNALED(status)) {
      std::cerr << "quartz: run: the program " << describe_end(status) << "; the capture "
                << o.output << " covers it to its end\n";
    }
    return exists;
  }
  std::string why;
  if (!known) {
    why = "the program " + describe_end(status) + " (no status file could be made in $TMPDIR)";
  } else if (!started) {
    why = "the runtime did not start in the program (statically linked or set-user-ID)";
  } else if (runtime.capture_error) {
    why = "the runtime could not write it: " + error_text(runtime.capture_error);
  } else if (WIFSIGNALED(status)) {
    why = "the program " + describe_end(status);
  } else {
    why = "the program " + describe_end(status) +
          " without the runtime's end (an exec replaced it, or it made the exit system call "
          "itself)";
  }
  // What the runtime published is at least as recent as any checkpoint it wrote.
  const std::optional<CaptureRescue::Published> published = rescue.latest();
  std::string write_error;
  if (published && published->path == o.output) {
    if (write_published(*published, o.output, &write_error)) {
      const double missing_ms = uncovered_ms(o.output, end_realtime_ns);
      std::cerr << "quartz: run: the capture " << o.output << " covers the run to "
                << (missing_ms < 0 ? std::string("?")
                                   : std::to_string(static_cast<long long>(missing_ms + 0.5)))
                << " ms before its end (from the figures the runtime last gave quartz run): " << why
                << "\n";
      return true;
    }
    why += "; quartz run could not write what the runtime gave it: " + write_error;
    exists = std::filesystem::exists(o.output, error);
  }
  if (exists) {
    std::cerr << "quartz: run: the capture " << o.output << " covers the run only up to its last "
              << "checkpoint (every " << checkpoint_ms << " ms): " << why << "\n";
  } else {
    std::cerr << "quartz: run: no capture was written (" << o.output << "): " << why;
    if (started && !runtime.capture_error && write_error.empty()) {
      std::cerr << ", before the runtime had sampled it";
    }
    std::cerr << "\n";
  }
  return exists;
}

// With --follow-exec, the program running when the process ended may be one an exec
// started: what it last published goes to its own capture, unless it wrote a final one.
void write_unfinished_followed_capture(const RunOptions& o, const CaptureRescue& rescue) {
  const std::optional<CaptureRescue::Published> published = rescue.latest();
  if (!published || published->path.rfind(o.output + ".exec-", 0) != 0) return;
  try {
    if (profile::read_capture(published->path).final) return;
  } catch (const std::exception&) {
    // None yet, or a partial one: replaced.
  }
  std::string error;
  if (!write_published(*published, published->path, &error)) {
    std::cerr << "quartz: run: cannot write " << published->path << ": " << error << "\n";
  }
}

// One unprofiled run first (--baseline): the runtime writes what it took into the capture.
// A run that fails leaves none: its figures would not be the program's.
void measure_baseline(RunOptions& o, const std::string& program, const std::string& library) {
  RunOptions idle = o;
  idle.env = {{"QUARTZ_DISABLE", "1"}};
  idle.profile = false;
  if (!o.quiet) std::cerr << "quartz: run: --baseline: running the program once unprofiled\n";
  const BaselineRun run =
      run_baseline(program, o.program, child_environment(idle, library, "", ""));
  if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0) {
    o.env["QUARTZ_BASELINE"] = baseline_variable(run);
  } else {
    std::cerr << "quartz: run: --baseline: the unprofiled run " << describe_end(run.status)
              << ": no baseline recorded\n";
  }
}

std::string import_hint(const RunOptions& o) {
  return "quartz import --store " + o.store + " " + o.output;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  RunOptions o = parse_run_options(args);
  if (!o.inherited.empty() && !o.quiet) {
    std::cerr << "quartz: run: from the environment:";
    for (const std::string& variable : o.inherited) std::cerr << " " << variable;
    std::cerr << " (a flag overrides each)\n";
  }
  std::string program, reason;
  if (const int status = find_program(o.program.front(), &program, &reason)) {
    std::cerr << "quartz: run: " << reason << "\n";
    return status;
  }
  const std::string library = runtime_library();
  InheritedSignals inherited;
  inherited.ignore_write_signals();
  if (o.profile && o.import) {
    try {  // before the program, not after: a bad store is known now
      profile::Store check(o.store);
    } catch (const profile::ReadOnlyStoreError& e) {
      throw UsageError(std::string("run: ") + e.what() + ": give another --store, or --no-import");
    }
  }
  if (o.baseline) measure_baseline(o, program, library);
  if (o.profile && o.output.empty()) o.output = default_output(o);
  std::optional<OutputClaim> claim;
  std::optional<StatusFile> status_file;
  std::optional<CaptureRescue> rescue;
  if (o.profile) {
    claim.emplace(&o.output);
    std::error_code ignored;  // never report a stale capture or trace as this run's
    std::filesystem::remove(o.output, ignored);
    std::filesystem::remove(o.output + ".trace", ignored);
    for (const std::string& stale : followed_captures(o.output)) {
      std::filesystem::remove(stale, ignored);
      std::filesystem::remove(stale + ".trace", ignored);
    }
    status_file.emplace();
    rescue.emplace();
  }
  std::vector<std::string> env = child_environment(
      o, library, status_file ? status_file->path() : "", rescue ? rescue->path() : "");
  std::vector<char*> argv = exec_strings(o.program), envp = exec_strings(env);

  int exec_error_pipe[2];  // closed by a successful exec; else carries its errno
  if (pipe2(exec_error_pipe, O_CLOEXEC) != 0) {
    throw UsageError(std::string("run: cannot make a pipe: ") + std::strerror(errno));
  }
  inherited.forward();
  const pid_t child = fork();
  if (child < 0) throw UsageError(std::string("run: cannot fork: ") + std::strerror(errno));
  if (child == 0) {
    if (rescue) rescue->claim_for_this_process();
    inherited.restore_all();
    execve(program.c_str(), argv.data(), envp.data());
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
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const uint64_t end_realtime_ns = realtime_ns();
  g_child = 0;
  inherited.stop_forwarding();
  if (got == sizeof exec_error) {
    std::cerr << "quartz: run: cannot execute '" << program << "': " << std::strerror(exec_error)
              << "\n";
    return exec_error == ENOENT ? 127 : 126;
  }

  if (o.profile) {
    write_unfinished_followed_capture(o, *rescue);
    const bool captured = explain_capture(o, status, end_realtime_ns, *status_file, *rescue);
    if (captured && !o.import) {
      if (!o.quiet) {
        std::cerr << "quartz: capture written to " << o.output << "; store it with '"
                  << import_hint(o) << "'\n";
      }
    } else if (captured) {
      std::string options;
      for (const auto& [k, v] : o.env) options += (options.empty() ? "" : " ") + k + "=" + v;
      std::map<std::string, int64_t> stored;
      try {
        const int64_t id = import_capture(o.output, o.store, options);
        stored[o.output] = id;
        if (!o.quiet) {
          std::cerr << "quartz: run " << id << " stored in " << o.store << " (capture " << o.output
                    << "); see 'quartz report " << id << "'\n";
        }
      } catch (const std::exception& e) {
        std::cerr << "quartz: run: the capture " << o.output
                  << " was kept but not stored: " << e.what() << "; store it with '"
                  << import_hint(o) << "'\n";
      }
      store_followed_captures(followed_captures(o.output), o.store, options, o.quiet, stored);
    }
  }
  claim.reset();
  status_file.reset();
  rescue.reset();
  end_like(status);
}

}  // namespace quartz::cli
