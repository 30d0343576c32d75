#include "cli/runtime_status.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace quartz::cli {

StatusFile::StatusFile() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/quartz-run-XXXXXX";
  const int fd = mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) return;  // the run goes on; its diagnosis will be vaguer
  const std::string blank(255, ' ');
  const bool written = write(fd, (blank + "\n").data(), 256) == 256;
  close(fd);
  if (written) {
    path_ = pattern;
  } else {
    unlink(pattern.c_str());
  }
}

StatusFile::~StatusFile() {
  if (!path_.empty()) unlink(path_.c_str());
}

bool StatusFile::read(RuntimeStatus* status) const {
  std::ifstream in(path_);
  std::string word;
  if (!(in >> word) || word != "quartz-status") return false;
  while (in >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = word.substr(0, eq);
    const long long value = std::strtoll(word.c_str() + eq + 1, nullptr, 10);
    if (key == "final") status->final_written = value != 0;
    if (key == "capture_error") status->capture_error = static_cast<int>(value);
    if (key == "trace_error") status->trace_error = static_cast<int>(value);
  }
  return true;
}

}  // namespace quartz::cli
