// The `quartz` subcommands, each in its own file (cli/NAME_command.cpp, cli/help.cpp).
// Each returns the process exit status; bad input throws UsageError (or a profile error),
// which main() prints on one line with status 2.
#pragma once

#include <string>
#include <vector>

#include "cli/command_line.h"

namespace quartz::profile {
class Store;
struct Run;
}  // namespace quartz::profile

namespace quartz::cli {

int run_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int import_command(const std::vector<std::string>& args);
int list_command(const std::vector<std::string>& args);
int predict_command(const std::vector<std::string>& args);
int diagnose_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int scale_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);
int push_command(const std::vector<std::string>& args);
std::string command_help(const std::string& command);

// Reads a capture, names its addresses, stores it with its metrics, its trace (if it has one
// next to it), its program's build and `labels`, all at once; returns the run id.
int64_t import_capture(const std::string& capture_path, const std::string& store_path,
                       const std::string& options, const Labels& labels = {});
// Stores the metrics of `run`, stored as `id`, for queries across runs (replacing any).
void store_metrics(profile::Store& store, int64_t id, const profile::Run& run);

}  // namespace quartz::cli
