#include "cli/run_family.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "format/capture_format.h"
#include "profile/capture.h"
#include "profile/store.h"

namespace quartz::cli {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<std::string> followed_captures(const std::string& root_capture) {
  const fs::path root(root_capture);
  const fs::path dir = root.has_parent_path() ? root.parent_path() : fs::path(".");
  const std::string prefix = root.filename().string() + ".exec-";
  std::vector<std::pair<double, std::string>> found;  // (start time, path)
  std::error_code error;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, error)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || ends_with(name, ".tmp") || ends_with(name, ".trace") ||
        ends_with(name, ".lock")) {
      continue;
    }
    double started = 0;
    try {
      started =
          profile::read_capture(e.path().string()).number(capture::run_keys::kStartRealtimeNs);
    } catch (const std::exception&) {
      // Unreadable: import says why.
    }
    found.emplace_back(started, e.path().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> paths;
  for (auto& [started, path] : found) paths.push_back(std::move(path));
  return paths;
}

bool store_followed_captures(const std::vector<std::string>& captures, const std::string& store,
                             const std::string& options, const Labels& labels, bool quiet,
                             std::map<std::string, int64_t>& stored) {
  bool all = true;
  for (const std::string& path : captures) {
    try {
      const std::string parent =
          profile::read_capture(path).text(capture::run_keys::kParentCapture);
      const int64_t id = import_capture(path, store, options, labels);
      stored[path] = id;
      const auto parent_run = stored.find(parent);
      if (parent_run != stored.end()) profile::Store(store).link_run(id, parent_run->second);
      if (!quiet) {
        std::cerr << "quartz: run " << id << " stored (capture " << path << ")";
        if (parent_run != stored.end()) std::cerr << ", started by run " << parent_run->second;
        std::cerr << "\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "quartz: run: the capture " << path << " was kept but not stored: " << e.what()
                << "; store it with 'quartz import --store " << store << " " << path << "'\n";
      all = false;
    }
  }
  return all;
}

}  // namespace quartz::cli
