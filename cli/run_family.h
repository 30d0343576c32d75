// `quartz run --follow-exec`: the programs the run's program started (fork and exec, or
// exec in place) each wrote a capture of their own, "<capture>.exec-<pid>[-k]", naming
// their parent's (libquartz/libquartz.cpp). Each is stored as a run, linked to its parent's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/command_line.h"

namespace quartz::cli {

// The captures of the programs started from the run's, oldest first.
std::vector<std::string> followed_captures(const std::string& root_capture);

// Stores each of `captures` (import_capture), labelled as the root, and links it to its
// parent's run, known from `stored` (capture path -> run id, the root's included; the new
// ones are added). Says on stderr what became of each, unless `quiet`. False if any could not
// be stored.
bool store_followed_captures(const std::vector<std::string>& captures, const std::string& store,
                             const std::string& options, const Labels& labels, bool quiet,
                             std::map<std::string, int64_t>& stored);

}  // namespace quartz::cli
