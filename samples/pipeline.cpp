// pipeline: three std::thread stages joined by two bounded queues; the middle one is slow.
//
// stage_read makes N items (U microseconds of processor time each) into the queue
// "raw_items"; stage_transform takes each, computes S * U microseconds and passes it on
// through "cooked_items"; stage_write takes each and computes U microseconds. Each queue
// holds at most Q items and is a std::mutex with two std::condition_variables (not_full,
// not_empty). Truth, by construction (S > 1, 2 or more processors):
//   - stage_transform is the bottleneck: its procedure has the most busy time (N * S * U)
//     and the most normalized time, and the elapsed time is about N * S * U
//     (defaults: 400 * 3 ms = 1.2 s);
//   - stage_read and stage_write are busy N * U each and spend the rest, about
//     (S - 1) / S of the run, blocked on the queues' conditions ("raw_items.not_full" and
//     "cooked_items.not_empty").
// Prints its measured truth: read_cpu_s, transform_cpu_s, write_cpu_s (each stage thread's
// CPU clock), read_blocked_s, write_blocked_s (wall time those stages waited on the
// queues), items (items written), elapsed_s.
//
//   pipeline [--items N] [--item-us U] [--slow-factor S] [--queue Q]
//   defaults: 400        1000         3                 4
#include <pthread.h>
#include <time.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

static long items = 400, item_us = 1000, slow_factor = 3, queue_capacity = 4;

// extern "C": the procedures keep their plain names as symbols (stage_transform, not
// _Z15stage_transformv), which is what reports and tests look for.
extern "C" {

// Burns `us` microseconds of the calling thread's processor time. The thread's CPU clock
// decides when to stop, so the cost holds when the thread is preempted; the cheap wall
// clock paces the loop between reads of the CPU clock (a system call).

}  // extern "C"

// A bounded FIFO of item numbers between two stages.
class BoundedQueue {
 public:
  static constexpr long kEndOfStream = -1;

  BoundedQueue(const char* name, size_t capacity) : capacity_(capacity) {
    snprintf(mutex_name_, sizeof mutex_name_, "%s", name);
    snprintf(not_full_name_, sizeof not_full_name_, "%s.not_full", name);
    snprintf(not_empty_name_, sizeof not_empty_name_, "%s.not_empty", name);
    quartz_name_object(mutex_.native_handle(), mutex_name_);
    quartz_name_object(not_full_.native_handle(), not_full_name_);
    quartz_name_object(not_empty_.native_handle(), not_empty_name_);
  }

  // Appends `item`, waiting while the queue is full. Returns the wall time waited, in s.
  double push(long item) {
    std::unique_lock<std::mutex> lock(mutex_);
    double waited_s = 0;
    if (queue_.size() >= capacity_) {
      double start = now_us();
      not_full_.wait(lock, [this] { return queue_.size() < capacity_; });
      waited_s = (now_us() - start) / 1e6;
    }
    queue_.push_back(item);
    lock.unlock();
    not_empty_.notify_one();
    return waited_s;
  }

  // Removes the oldest item into *item, waiting while the queue is empty. Returns the wall
  // time waited, in s.
  double pop(long* item) {
    std::unique_lock<std::mutex> lock(mutex_);
    double waited_s = 0;
    if (queue_.empty()) {
      double start = now_us();
      not_empty_.wait(lock, [this] { return !queue_.empty(); });
      waited_s = (now_us() - start) / 1e6;
    }
    *item = queue_.front();
    queue_.pop_front();
    lock.unlock();
    not_full_.notify_one();
    return waited_s;
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<long> queue_;
  size_t capacity_;
  char mutex_name_[48], not_full_name_[48], not_empty_name_[48];
};

static BoundedQueue* raw_items;
static BoundedQueue* cooked_items;
static double read_cpu_s, transform_cpu_s, write_cpu_s, read_blocked_s, write_blocked_s;
static long items_written;

extern "C" {

SAMPLE_PROCEDURE void stage_read(void) {
  pthread_setname_np(pthread_self(), "stage_read");
  for (long i = 0; i < items; i++) {
    compute(item_us);
    read_blocked_s += raw_items->push(i);
  }
  raw_items->push(BoundedQueue::kEndOfStream);
  read_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
}

SAMPLE_PROCEDURE void stage_transform(void) {
  pthread_setname_np(pthread_self(), "stage_transform");
  for (;;) {
    long item;
    raw_items->pop(&item);
    if (item != BoundedQueue::kEndOfStream) compute(slow_factor * item_us);
    cooked_items->push(item);
    if (item == BoundedQueue::kEndOfStream) break;
  }
  transform_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
}

SAMPLE_PROCEDURE void stage_write(void) {
  pthread_setname_np(pthread_self(), "stage_write");
  for (;;) {
    long item;
    write_blocked_s += cooked_items->pop(&item);
    if (item == BoundedQueue::kEndOfStream) break;
    compute(item_us);
    items_written++;
  }
  write_cpu_s = clock_s(CLOCK_THREAD_CPUTIME_ID);
}

}  // extern "C"

int main(int argc, char** argv) {
  double start = now_us();
  struct sample_flag flags[] = {
      {"--items", &items, 0, 100000000},
      {"--item-us", &item_us, 0, 10000000},
      {"--slow-factor", &slow_factor, 1, 1000},
      {"--queue", &queue_capacity, 1, 1000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  BoundedQueue raw("raw_items", (size_t)queue_capacity);
  BoundedQueue cooked("cooked_items", (size_t)queue_capacity);
  raw_items = &raw;
  cooked_items = &cooked;

  std::thread reader(stage_read), transformer(stage_transform), writer(stage_write);
  reader.join();
  transformer.join();
  writer.join();

  printf("read_cpu_s=%.6f\n", read_cpu_s);
  printf("transform_cpu_s=%.6f\n", transform_cpu_s);
  printf("write_cpu_s=%.6f\n", write_cpu_s);
  printf("read_blocked_s=%.6f\n", read_blocked_s);
  printf("write_blocked_s=%.6f\n", write_blocked_s);
  printf("items=%ld\n", items_written);
  printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
