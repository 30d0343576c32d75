// `quartz list`: the runs in the store, one a line.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "profile/store.h"

namespace quartz::cli {

int list_command(const std::vector<std::string>& args) {
  Arguments a(args, "list");
  std::string store_path = default_store();
  while (!a.done()) {
    if (a.value("--store", &store_path)) continue;
    a.unknown();
  }
  if (!profile::Store::exists(store_path)) {
    throw UsageError("list: no store at " + profile::Store::display_name(store_path));
  }
  const profile::Store store(store_path, profile::StoreAccess::read_only);
  std::cout << "  run  started              elapsed  P  samples  program\n";
  for (const profile::RunSummary& r : store.list()) {
    char line[128];
    std::snprintf(line, sizeof line, "%5lld  %-19s %8.3fs %2u %8llu  ",
                  static_cast<long long>(r.id), r.started.c_str(), r.elapsed_s, r.processors,
                  static_cast<unsigned long long>(r.samples));
    const std::optional<int64_t> parent = store.parent_run(r.id);
    const std::optional<int64_t> series = store.series_of(r.id);
    std::cout << line << (r.arguments.empty() ? r.program : r.arguments)
              << (r.final ? "" : "  (ended abnormally)")
              << (parent ? "  (started by run " + std::to_string(*parent) + ")" : "")
              << (series ? "  (scale series " + std::to_string(*series) + ")" : "") << "\n";
  }
  return 0;
}

}  // namespace quartz::cli
