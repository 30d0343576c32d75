#include "cli/baseline_run.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <cstring>

#include "cli/command_line.h"

namespace quartz::cli {
namespace {

uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t ns(const timeval& t) {
  return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_usec) * 1000;
}

}  // namespace

BaselineRun run_baseline(const std::string& program, const std::vector<std::string>& argv,
                         const std::vector<std::string>& env) {
  std::vector<char*> args = exec_strings(argv), envp = exec_strings(env);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0);
  BaselineRun run;
  const uint64_t start = monotonic_ns();
  pid_t child = 0;
  const int error = posix_spawn(&child, program.c_str(), &files, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  if (error != 0) {
    throw UsageError("run: --baseline: cannot run '" + program + "': " + std::strerror(error));
  }
  rusage usage{};
  while (wait4(child, &run.status, 0, &usage) < 0 && errno == EINTR) {
  }
  run.elapsed_ns = monotonic_ns() - start;
  run.cpu_ns = ns(usage.ru_utime) + ns(usage.ru_stime);
  return run;
}

std::string baseline_variable(const BaselineRun& run) {
  return std::to_string(run.cpu_ns) + "," + std::to_string(run.elapsed_ns);
}

}  // namespace quartz::cli
