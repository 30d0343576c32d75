// `quartz list`: the runs in the store, one a line.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "profile/store.h"

namespace quartz::cli {

int list_command(const std::vector<std::string>& args) {
  Arguments a(args, "list");
  std::string store_path = default_store(), host;
  Labels wanted;
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    if (a.value("--host", &host)) continue;
    if (a.label("--label", &wanted)) continue;
    a.unknown();
  }
  if (!profile::Store::exists(store_path)) {
    throw UsageError("list: no store at " + profile::Store::display_name(store_path));
  }
  const profile::Store store(store_path, profile::StoreAccess::read_only);
  const std::vector<profile::RunSummary> runs = store.list();
  // Runs of several machines (a team's store) say each its host.
  const bool hosts = std::any_of(runs.begin(), runs.end(),
                                 [&](const auto& r) { return r.host != runs.front().host; });
  std::cout << "  run  started              elapsed  P  samples  program\n";
  for (const profile::RunSummary& r : runs) {
    if (!r.matches(wanted, host)) continue;
    char line[128];
    std::snprintf(line, sizeof line, "%5lld  %-19s %8.3fs %2u %8llu  ",
                  static_cast<long long>(r.id), r.started.c_str(), r.elapsed_s, r.processors,
                  static_cast<unsigned long long>(r.samples));
    const std::optional<int64_t> parent = store.parent_run(r.id);
    const std::optional<int64_t> series = store.series_of(r.id);
    std::cout << line << (r.arguments.empty() ? r.program : r.arguments)
              << (r.final ? "" : "  (ended abnormally)")
              << (parent ? "  (started by run " + std::to_string(*parent) + ")" : "")
              << (series ? "  (scale series " + std::to_string(*series) + ")" : "")
              << (hosts ? "  on " + r.host : "");
    for (const auto& [key, value] : r.labels) std::cout << "  " << key << "=" << value;
    std::cout << "\n";
  }
  return 0;
}

}  // namespace quartz::cli
