// `quartz run --baseline`: one run of the program without the profiler, before the profiled
// one: the report's dilation and the overhead `quartz predict` removes are measured
// against it (docs/user-guide.md, "quartz run").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace quartz::cli {

struct BaselineRun {
  uint64_t cpu_ns = 0;      // all its threads, user and system
  uint64_t elapsed_ns = 0;  // from start to the end of its wait
  int status = 0;           // as waitpid gives it
};

// Runs `program` with `argv` and `env` (the runtime disabled in it), its standard input and
// outputs on /dev/null, and waits for it. Throws UsageError when it cannot start.
BaselineRun run_baseline(const std::string& program, const std::vector<std::string>& argv,
                         const std::vector<std::string>& env);

// The QUARTZ_BASELINE value the runtime writes into the capture.
std::string baseline_variable(const BaselineRun& run);

}  // namespace quartz::cli
