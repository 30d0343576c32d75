#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace quartz::cli {

Progress::Progress(std::string command) : command_(std::move(command)) {
  if (!isatty(STDERR_FILENO)) return;
  thread_ = std::thread([this] { show(); });
}

Progress::~Progress() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void Progress::step(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  step_ = what;
}

void Progress::show() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wake_.wait_for(lock, std::chrono::seconds(1), [this] { return done_; })) return;
  while (!done_) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // \033[K clears what a longer step left on the line.
    std::fprintf(stderr, "\rquartz: %s: %s, %.0f s\033[K", command_.c_str(), step_.c_str(),
                 seconds);
    std::fflush(stderr);
    shown_ = true;
    wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return done_; });
  }
  if (shown_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace quartz::cli
