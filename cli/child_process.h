// `quartz run`'s child: the program, found as execvp would find it, given its environment,
// started with the signals `quartz` was given, sent the signals `quartz` is sent while it
// runs, and waited for; and `quartz`'s own end, like the program's.
#pragma once

#include <signal.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cli/run_options.h"

namespace quartz::cli {

// Where execvp would find the program. Fills `reason` and returns 127 (not found) or 126
// (found, cannot be executed) as a shell would; 0 when found.
int find_program(const std::string& name, std::string* path, std::string* reason);

// Ours less QUARTZ_*, with `library` preloaded ahead of any LD_PRELOAD, the runtime's
// options, its capture path, and the paths it reports through ("": none).
std::vector<std::string> child_environment(const RunOptions& o, const std::string& library,
                                           const std::string& status_path,
                                           const std::string& shared_path);

// The dispositions and mask `quartz` was started with; the program gets them back.
class InheritedSignals {
 public:
  static constexpr size_t kChangedSignals = 6;  // that `quartz run` changes for itself

  InheritedSignals();
  // Ignores SIGPIPE and SIGXFSZ: a failed write of ours is an error we report, not our end.
  void ignore_write_signals() const;
  // Forwards SIGTERM, SIGINT, SIGHUP and SIGQUIT to the child, as `timeout` does, blocked
  // until `release` so that none is lost before its pid is known.
  void forward() const;
  void release() const;
  // In the child, before exec: everything as `quartz` found it.
  void restore_all() const;
  // Once the program has ended: signals stop `quartz` as they would have without it.
  void stop_forwarding() const;

 private:
  sigset_t mask_;
  struct sigaction actions_[kChangedSignals];
};

struct ChildEnd {
  int exec_error = 0;            // errno of the exec that failed: the program never ran
  int status = 0;                // as waitpid gives it
  uint64_t end_realtime_ns = 0;  // CLOCK_REALTIME once it had ended
};

// Starts `program` with `argv` and `env`, signals forwarded (inherited.forward), and waits
// for its end. `in_child` runs in the forked child before its exec: async-signal-safe.
// Throws UsageError when it cannot fork.
ChildEnd run_child(const std::string& program, const std::vector<std::string>& argv,
                   const std::vector<std::string>& env, const InheritedSignals& inherited,
                   const std::function<void()>& in_child);

// Ends `quartz` the way the program ended, so that a shell sees what it would have seen
// without us (as `timeout` does); no core of ours replaces the program's.
[[noreturn]] void end_like(int status);

}  // namespace quartz::cli
