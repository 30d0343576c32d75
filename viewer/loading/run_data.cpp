#include "viewer/loading/run_data.h"

#include <filesystem>

#include "profile/open_run.h"

namespace quartz::viewer {

std::string one_line(const std::string& message) {
  std::string line = message;
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::shared_ptr<const RunData> load_run(const std::string& which, const std::string& store_path) {
  const bool run_number =
      !which.empty() && which.find_first_not_of("0123456789") == std::string::npos;
  std::error_code error;
  if (!which.empty() && which != "latest" && !run_number &&
      !std::filesystem::exists(which, error)) {
    throw LoadError(which + ": no such file");
  }
  auto data = std::make_shared<RunData>();
  try {
    profile::OpenedRun opened = profile::open_run(which, store_path);
    data->label = opened.label;
    data->store_id = opened.id;
    data->source = opened.id ? store_path : which;
    data->run = std::move(opened.run);
  } catch (const std::exception& e) {
    throw LoadError(one_line(e.what()));
  }
  data->view = analysis::analyze(data->run);
  return data;
}

}  // namespace quartz::viewer
