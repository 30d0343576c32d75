// thread_pool: a pool of std::thread workers taking std::function tasks from a queue (a
// std::mutex and a std::condition_variable), and a submitter that submits a batch of tasks,
// waits for all of them (a count of tasks left and a second condition variable, notified
// by the worker that finishes the last), then submits the next. Issue 15 item 1.
//
// Batch b has T tasks; task i of it computes U * (1 + (i + b) % 3) microseconds, so tasks
// differ and workers finish a batch at different times. Workers wait with a predicate
// (a wake-up that finds the queue emptied by another worker waits again); the submitter
// notifies one worker per task it pushes, after unlocking.
// Truth, by construction: the processor time is about B T 2U; the batches run one after
// the other, each at least as long as its longest task.
// Prints tasks (run), worker_waits (condition waits that blocked), elapsed_s (main's start
// to its end, the wall clock the replay is checked against).
//
//   thread_pool [--workers W] [--batches B] [--tasks T] [--task-us U]
//   defaults:    3             300           8         100
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

namespace {

long workers = 3, batches = 300, tasks_per_batch = 8, task_us = 100;

class ThreadPool {
 public:
  explicit ThreadPool(long n) {
    quartz_name_object(mutex_.native_handle(), "tasks");
    quartz_name_object(has_task_.native_handle(), "tasks.has_task");
    quartz_name_object(all_done_.native_handle(), "tasks.all_done");
    for (long i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    has_task_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void submit(std::function<void()> task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      tasks_.push_back(std::move(task));
      ++unfinished_;
    }
    has_task_.notify_one();
  }

  // Returns when every task submitted so far has run.
  void wait_all() {
    std::unique_lock<std::mutex> lock(mutex_);
    all_done_.wait(lock, [this] { return unfinished_ == 0; });
  }

  long waits() const { return waits_.load(); }

 private:
  void work() {
    pthread_setname_np(pthread_self(), "pool_worker");
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        while (tasks_.empty() && !stopping_) {
          ++waits_;
          has_task_.wait(lock);
        }
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task();
      bool last = false;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        last = --unfinished_ == 0;
      }
      if (last) all_done_.notify_one();
    }
  }

  std::mutex mutex_;
  std::condition_variable has_task_, all_done_;
  std::deque<std::function<void()>> tasks_;
  long unfinished_ = 0;
  bool stopping_ = false;
  std::atomic<long> waits_{0};
  std::vector<std::thread> threads_;
};

std::atomic<long> tasks_run{0};

}  // namespace

extern "C" {

void run_task(long us) {
  compute(us);
  ++tasks_run;
}

}  // extern "C"

int main(int argc, char** argv) {
  const double start = now_us();
  struct sample_flag flags[] = {
      {"--workers", &workers, 1, 64},
      {"--batches", &batches, 0, 100000000},
      {"--tasks", &tasks_per_batch, 0, 1000000},
      {"--task-us", &task_us, 0, 10000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  long worker_waits = 0;
  {
    ThreadPool pool(workers);
    for (long b = 0; b < batches; ++b) {
      for (long i = 0; i < tasks_per_batch; ++i) {
        const long us = task_us * (1 + (i + b) % 3);
        pool.submit([us] { run_task(us); });
      }
      pool.wait_all();
    }
    worker_waits = pool.waits();
  }
  std::printf("tasks=%ld\n", tasks_run.load());
  std::printf("worker_waits=%ld\n", worker_waits);
  std::printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
