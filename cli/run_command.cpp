// `quartz run`: preloads the runtime into a program, lets it sample, imports the capture.
// The child process is child_process.h's; what is said at its end, run_diagnosis.h's.
#include <sys/wait.h>

#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "cli/baseline_run.h"
#include "cli/capture_path.h"
#include "cli/capture_rescue.h"
#include "cli/child_process.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/run_diagnosis.h"
#include "cli/run_family.h"
#include "cli/run_options.h"
#include "cli/runtime_status.h"
#include "profile/store.h"

namespace quartz::cli {
namespace {

// Before the program, not after: a bad store is known now. A server out of reach may be back
// by the program's end; if not, its capture is kept to be stored later.
void check_store(const RunOptions& o) {
  try {
    profile::Store check(o.store);
  } catch (const profile::ReadOnlyStoreError& e) {
    throw UsageError(std::string("run: ") + e.what() + ": give another --store, or --no-import");
  } catch (const profile::UnreachableStoreError& e) {
    std::cerr << "quartz: run: " << e.what() << "; profiling all the same\n";
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

// Never reports a stale capture or trace as this run's.
void remove_stale_captures(const std::string& output) {
  std::error_code ignored;
  std::filesystem::remove(output, ignored);
  std::filesystem::remove(output + ".trace", ignored);
  for (const std::string& stale : followed_captures(output)) {
    std::filesystem::remove(stale, ignored);
    std::filesystem::remove(stale + ".trace", ignored);
  }
}

// Stores the capture, if `written`, and those of the programs it started (--follow-exec), or
// says how. A program that exec'd another before its first sample wrote none of its own.
void store_captures(const RunOptions& o, bool written) {
  if (!o.import) {
    if (!written) return;
    if (!o.quiet) {
      std::cerr << "quartz: capture written to " << o.output << "; store it with '"
                << import_hint(o) << "'\n";
    }
    return;
  }
  std::string options;
  for (const auto& [k, v] : o.env) options += (options.empty() ? "" : " ") + k + "=" + v;
  std::map<std::string, int64_t> stored;
  try {
    if (written) {
      const int64_t id = import_capture(o.output, o.store, options, o.labels);
      stored[o.output] = id;
      if (!o.quiet) {
        std::cerr << "quartz: run " << id << " stored in " << profile::Store::display_name(o.store)
                  << " (capture " << o.output << "); see 'quartz report " << id << "'\n";
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "quartz: run: the capture " << o.output << " was kept but not stored: " << e.what()
              << "; store it with '" << import_hint(o) << "'\n";
  }
  store_followed_captures(followed_captures(o.output), o.store, options, o.labels, o.quiet, stored);
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
  if (o.profile && o.import) check_store(o);
  if (o.baseline) measure_baseline(o, program, library);
  if (o.profile && o.output.empty()) o.output = default_output(o);
  std::optional<OutputClaim> claim;
  std::optional<StatusFile> status_file;
  std::optional<CaptureRescue> rescue;
  if (o.profile) {
    claim.emplace(&o.output);
    remove_stale_captures(o.output);
    status_file.emplace();
    rescue.emplace();
  }
  const std::vector<std::string> env = child_environment(
      o, library, status_file ? status_file->path() : "", rescue ? rescue->path() : "");
  const ChildEnd end = run_child(program, o.program, env, inherited, [&rescue] {
    if (rescue) rescue->claim_for_this_process();
  });
  if (end.exec_error) {
    std::cerr << "quartz: run: cannot execute '" << program
              << "': " << std::strerror(end.exec_error) << "\n";
    return end.exec_error == ENOENT ? 127 : 126;
  }

  if (o.profile) {
    write_unfinished_followed_capture(o.output, *rescue);
    store_captures(o, explain_capture(o, end.status, end.end_realtime_ns, *status_file, *rescue));
  }
  claim.reset();
  status_file.reset();
  rescue.reset();
  end_like(end.status);
}

}  // namespace quartz::cli
