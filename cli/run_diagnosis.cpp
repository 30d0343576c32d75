#include "cli/run_diagnosis.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "format/capture_format.h"
#include "profile/capture.h"
#include "profile/store.h"

namespace quartz::cli {
namespace {

std::string error_text(int error) {
  if (error < 0) return "not a regular file";
  return std::string(std::strerror(error)) + " (errno " + std::to_string(error) +
         (error == EFBIG ? "; past the file-size limit, ulimit -f)" : ")");
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

}  // namespace

std::string describe_end(int status) {
  if (WIFSIGNALED(status)) {
    return "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

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

std::string import_hint(const RunOptions& o) {
  std::string hint = "quartz import --store " + profile::Store::display_name(o.store);
  for (const auto& [key, value] : o.labels) hint += " --label " + key + "=" + value;
  return hint + " " + o.output;
}

}  // namespace quartz::cli
