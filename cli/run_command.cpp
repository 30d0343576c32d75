// `quartz run`: preloads the runtime into a program, lets it sample, imports the capture.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "format/placement_syntax.h"

extern char** environ;

namespace quartz::cli {
namespace {

struct RunOptions {
  std::string output;
  std::string store = default_store();
  bool import = true;
  bool quiet = false;
  bool profile = true;  // --no-profile: the runtime only places threads
  std::map<std::string, std::string> env;  // QUARTZ_* for the runtime
  std::vector<std::string> program;
};

// The runtime reads the placement; here it is only checked, so that a typo is an error
// before the program runs rather than a warning while it does.
void check_placement(const std::string& spec) {
  const format::PlacementSyntax syntax = format::check_placement(spec);
  if (syntax.error != format::PlacementSyntaxError::none) {
    std::string what = format::describe(syntax.error);
    if (!syntax.where.empty()) what += " ('" + std::string(syntax.where) + "')";
    throw UsageError("run: --placement '" + spec + "' has " + what);
  }
  if (syntax.groups > sysconf(_SC_NPROCESSORS_ONLN)) {
    throw UsageError("run: --placement has " + std::to_string(syntax.groups) +
                     " groups but there are " + std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) +
                     " processors");
  }
}

RunOptions parse(const std::vector<std::string>& args) {
  RunOptions o;
  Arguments a(args, "run");
  while (!a.done()) {
    std::string text;
    uint64_t n = 0;
    if (a.flag("--")) break;
    if (a.value("--output", &o.output) || a.value("-o", &o.output)) continue;
    if (a.value("--store", &o.store)) continue;
    if (a.flag("--no-import")) {
      o.import = false;
      continue;
    }
    if (a.flag("--quiet") || a.flag("-q")) {
      o.quiet = true;
      continue;
    }
    if (a.number("--period-us", 50, 1000000, &n)) {
      o.env["QUARTZ_PERIOD_US"] = std::to_string(n);
      continue;
    }
    if (a.number("--checkpoint-ms", 10, 3600000, &n)) {
      o.env["QUARTZ_CHECKPOINT_MS"] = std::to_string(n);
      continue;
    }
    if (a.number("--stack-capacity", 16, 65536, &n)) {
      o.env["QUARTZ_STACK_CAPACITY"] = std::to_string(n);
      continue;
    }
    if (a.flag("--reserve")) {
      o.env["QUARTZ_RESERVE"] = "yes";
      continue;
    }
    if (a.flag("--no-reserve")) {
      o.env["QUARTZ_RESERVE"] = "no";
      continue;
    }
    if (a.value("--reserved-cores", &text)) {
      o.env["QUARTZ_RESERVED_CORES"] = text;
      o.env["QUARTZ_RESERVE"] = "yes";
      continue;
    }
    if (a.flag("--follow-exec")) {
      o.env["QUARTZ_FOLLOW_EXEC"] = "1";
      continue;
    }
    if (a.value("--summary", &text)) {
      o.env["QUARTZ_SUMMARY"] = text;
      continue;
    }
    if (a.flag("--trace")) {
      o.env["QUARTZ_TRACE"] = "1";
      continue;
    }
    if (a.number("--trace-capacity", 64, 1u << 24, &n)) {
      o.env["QUARTZ_TRACE_CAPACITY"] = std::to_string(n);
      o.env["QUARTZ_TRACE"] = "1";
      continue;
    }
    if (a.value("--placement", &text)) {
      check_placement(text);
      o.env["QUARTZ_PLACEMENT"] = text;
      continue;
    }
    if (a.flag("--no-profile")) {
      o.profile = false;
      continue;
    }
    if (a.peek().rfind("-", 0) == 0) a.unknown();
    break;  // the program
  }
  o.program = a.rest();
  if (o.program.empty()) throw UsageError("run: no program given (quartz run [options] -- PROGRAM ARGS)");
  if (!o.profile && o.env.count("QUARTZ_TRACE")) throw UsageError("run: --trace needs profiling (drop --no-profile)");
  return o;
}

// The program's path as execvp would find it, or a UsageError.
std::string find_program(const std::string& name) {
  auto runnable = [](const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (!runnable(name)) throw UsageError("run: cannot execute '" + name + "'");
    return name;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = dirs.find(':', start);
    std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    if (runnable(dir + "/" + name)) return dir + "/" + name;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  throw UsageError("run: cannot find program '" + name + "' in PATH");
}

std::string default_output(const RunOptions& o) {
  const std::filesystem::path store(o.store);
  const auto dir = (store.has_parent_path() ? store.parent_path() : std::filesystem::path(".")) /
                   "quartz-captures";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw UsageError("run: cannot create " + dir.string() + ": " + error.message());
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  const std::string name = std::filesystem::path(o.program.front()).filename().string();
  return (dir / (name + "-" + stamp + "-" + std::to_string(getpid()) + ".qcap")).string();
}

std::vector<std::string> child_environment(const RunOptions& o, const std::string& library) {
  std::vector<std::string> env;
  std::string preload = library;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (entry.rfind("LD_PRELOAD=", 0) == 0) {
      preload += ":" + entry.substr(11);
    } else if (entry.rfind("QUARTZ_", 0) != 0) {
      env.push_back(entry);
    }
  }
  env.push_back("LD_PRELOAD=" + preload);
  for (const auto& [k, v] : o.env) env.push_back(k + "=" + v);
  if (o.profile) env.push_back("QUARTZ_OUTPUT=" + o.output);
  return env;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  RunOptions o = parse(args);
  const std::string program = find_program(o.program.front());
  const std::string library = runtime_library();
  if (o.profile && o.output.empty()) o.output = default_output(o);
  if (o.profile) {
    std::error_code ignored;  // never report a stale capture or trace as this run's
    std::filesystem::remove(o.output, ignored);
    std::filesystem::remove(o.output + ".trace", ignored);
  }
  std::vector<std::string> env = child_environment(o, library);

  // The terminal's ^C reaches the program; we wait for it and then store what it wrote.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  const pid_t child = fork();
  if (child < 0) throw UsageError(std::string("run: cannot fork: ") + std::strerror(errno));
  if (child == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    std::vector<char*> argv, envp;
    for (auto& a : o.program) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    execve(program.c_str(), argv.data(), envp.data());
    std::cerr << "quartz: run: cannot execute '" << program << "': " << std::strerror(errno) << "\n";
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

  if (!o.profile) return exit_status;
  std::error_code error;
  if (!std::filesystem::exists(o.output, error)) {
    std::cerr << "quartz: run: no capture was written (" << o.output
              << "): the program ended before the runtime started, or is statically linked\n";
    return exit_status == 0 ? 2 : exit_status;
  }
  if (!o.import) {
    if (!o.quiet) std::cerr << "quartz: capture written to " << o.output << "\n";
    return exit_status;
  }
  std::string options;
  for (const auto& [k, v] : o.env) options += (options.empty() ? "" : " ") + k + "=" + v;
  const int64_t id = import_capture(o.output, o.store, options);
  if (!o.quiet) {
    std::cerr << "quartz: run " << id << " stored in " << o.store << " (capture " << o.output
              << "); see 'quartz report " << id << "'\n";
  }
  return exit_status;
}

}  // namespace quartz::cli
