// `quartz run`'s command line: its own options and the runtime's. The runtime reads its
// options from QUARTZ_* variables (runtime/options.cpp); every one of them has a flag here,
// and one already in the user's environment reaches the program unless a flag sets it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cli/command_line.h"

namespace quartz::cli {

struct RunOptions {
  std::string output;
  std::string store;
  bool import = true;
  bool quiet = false;
  bool baseline = false;                   // --baseline: one unprofiled run first
  bool profile = true;                     // false: --no-profile or --disable, no capture
  std::map<std::string, std::string> env;  // QUARTZ_* for the runtime
  // The runtime options of env that came from the user's environment ("NAME=value"), for
  // the note that says so.
  std::vector<std::string> inherited;
  std::vector<std::string> program;
  Labels labels;  // --label key=value, stored with the run
};

// Throws UsageError for a bad command line or a bad runtime variable.
RunOptions parse_run_options(const std::vector<std::string>& args);

}  // namespace quartz::cli
