#include "cli/capture_path.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <iostream>

#include "cli/command_line.h"
#include "profile/store.h"

namespace quartz::cli {
namespace {

std::filesystem::path capture_directory(const RunOptions& o) {
  // A server's runs are captured here first, as a store in this directory's would be.
  const std::filesystem::path store(profile::Store::is_server_uri(o.store) ? "quartz.db" : o.store);
  const auto beside_store =
      (store.has_parent_path() ? store.parent_path() : std::filesystem::path(".")) /
      "quartz-captures";
  std::error_code error;
  std::filesystem::create_directories(beside_store, error);
  if (!error && access(beside_store.c_str(), W_OK) == 0) return beside_store;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path fallback;
  if (cache && *cache == '/') {
    fallback = std::filesystem::path(cache) / "quartz";
  } else if (home && *home) {
    fallback = std::filesystem::path(home) / ".cache" / "quartz";
  } else {
    throw UsageError("run: cannot write " + beside_store.string() + " and no $HOME: give -o");
  }
  std::error_code fallback_error;
  std::filesystem::create_directories(fallback, fallback_error);
  if (fallback_error || access(fallback.c_str(), W_OK) != 0) {
    throw UsageError("run: cannot write " + beside_store.string() + " nor " + fallback.string() +
                     ": give -o");
  }
  return fallback;
}

}  // namespace

std::string default_output(const RunOptions& o) {
  const std::filesystem::path dir = capture_directory(o);
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
  const std::string name = std::filesystem::path(o.program.front()).filename().string();
  return (dir / (name + "-" + stamp + "-" + std::to_string(getpid()) + ".qcap")).string();
}

OutputClaim::OutputClaim(std::string* output) {
  const std::filesystem::path wanted(*output);
  for (int n = 1; n <= 100; ++n) {
    std::filesystem::path candidate = wanted;
    if (n > 1) {
      candidate.replace_filename(wanted.stem().string() + "-" + std::to_string(n) +
                                 wanted.extension().string());
    }
    if (lock(candidate.string() + ".lock")) {
      if (n > 1) {
        std::cerr << "quartz: run: " << *output << " is being written by another run; this run's "
                  << "capture is " << candidate.string() << "\n";
      }
      *output = candidate.string();
      return;
    }
  }
  throw UsageError("run: " + *output + " and its alternatives are all in use by other runs");
}

OutputClaim::~OutputClaim() {
  if (fd_ < 0) return;
  unlink(lock_path_.c_str());
  close(fd_);
}

bool OutputClaim::lock(const std::string& path) {
  for (;;) {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    // A run that cannot create files there (read-only, missing) cannot clobber another
    // either: it goes on, and the runtime's error is reported when it ends.
    if (fd < 0) return true;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      close(fd);
      return false;
    }
    // The holder before us may have removed the file between our open and our lock.
    struct stat held, named;
    if (fstat(fd, &held) == 0 && stat(path.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      fd_ = fd;
      lock_path_ = path;
      return true;
    }
    close(fd);
  }
}

}  // namespace quartz::cli
