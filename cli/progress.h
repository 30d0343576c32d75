// What a long command is doing, on a terminal: after a second, the step under way and the
// time so far, on one line of standard error rewritten in place, cleared at the end.
// Nothing when standard error is not a terminal, and nothing for a command that ends
// within the second (the common case: a sample's report takes a few milliseconds).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace quartz::cli {

class Progress {
 public:
  explicit Progress(std::string command);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(const std::string& what);  // "reading big.qcap (1.07 GB)"

 private:
  void show();

  const std::string command_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string step_;
  bool done_ = false, shown_ = false;
  std::thread thread_;
};

}  // namespace quartz::cli
