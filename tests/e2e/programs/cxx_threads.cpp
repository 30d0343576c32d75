// The C++ standard library's threads and locks go through the interposed pthreads:
//   counter_mutex   4 std::threads x 10000 std::lock_guard      -> 40000 acquisitions
//   recursive       std::recursive_mutex, 2 deep x 50           -> 100
//   shared          std::shared_mutex: 30 shared, 20 unique     -> 50
//   timed           std::timed_mutex::try_lock_for, 10          -> 10
//   cv              std::condition_variable handshake, 20 rounds -> 20 waits or fewer
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "quartz/quartz.h"

std::mutex counter_mutex;
std::recursive_mutex recursive;
std::shared_mutex shared;
std::timed_mutex timed;
std::mutex cv_mutex;
std::condition_variable cv;
long counter = 0;
int turn = 0;

void add_many() {
  for (int i = 0; i < 10000; ++i) {
    std::lock_guard<std::mutex> guard(counter_mutex);
    ++counter;
  }
}

void recurse(int depth) {
  std::lock_guard<std::recursive_mutex> guard(recursive);
  if (depth > 1) recurse(depth - 1);
}

void ping_pong(int me) {
  for (int round = 0; round < 10; ++round) {
    std::unique_lock<std::mutex> lock(cv_mutex);
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return turn == me; });
    turn = 1 - me;
    cv.notify_all();
  }
}

int main() {
  quartz_name_object(&counter_mutex, "counter_mutex");
  quartz_name_object(&recursive, "recursive");
  quartz_name_object(&shared, "shared");
  quartz_name_object(&timed, "timed");
  quartz_name_object(&cv, "cv");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(add_many);
  for (auto& t : threads) t.join();
  for (int i = 0; i < 50; ++i) recurse(2);
  for (int i = 0; i < 30; ++i) std::shared_lock<std::shared_mutex> reader(shared);
  for (int i = 0; i < 20; ++i) std::unique_lock<std::shared_mutex> writer(shared);
  for (int i = 0; i < 10; ++i) {
    if (timed.try_lock_for(std::chrono::milliseconds(100))) timed.unlock();
  }
  std::thread other(ping_pong, 1);
  ping_pong(0);
  other.join();
  std::printf("counter=%ld\n", counter);
  return counter == 40000 ? 0 : 1;
}
