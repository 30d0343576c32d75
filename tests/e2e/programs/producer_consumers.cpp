// producer_consumers: one producer and C consumers around one bounded queue, a std::mutex
// with two std::condition_variables (not_full, not_empty), as people write it: each side
// waits with a predicate (so a wake-up that finds nothing, stolen by another consumer or
// spurious, waits again) and notifies one after unlocking. Issue 15 item 1.
//
// The producer makes N items (P microseconds of processor time each, outside the lock);
// each consumer takes items until it takes the end marker and works W microseconds on each.
// Truth, by construction: the processor time is N (P + W); with fewer processors than
// threads the run takes at least N (P + W) / processors, and never less than N P (the
// producer alone).
// Prints items (consumed), producer_waits and consumer_waits (condition waits that
// blocked), elapsed_s (main's start to its end, the wall clock the replay is checked
// against).
//
//   producer_consumers [--items N] [--produce-us P] [--consume-us W] [--consumers C] [--queue Q]
//   defaults:           3000        60               150              3               4
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "quartz/quartz.h"
#include "sample_args.h"
#include "sample_work.h"

namespace {

long items = 3000, produce_us = 60, consume_us = 150, consumers = 3, queue_capacity = 4;
constexpr long kEnd = -1;

std::mutex queue_mutex;
std::condition_variable not_full, not_empty;
std::deque<long> queue;
std::atomic<long> consumed{0}, producer_waits{0}, consumer_waits{0};

void push(long item) {
  std::unique_lock<std::mutex> lock(queue_mutex);
  while (queue.size() >= static_cast<size_t>(queue_capacity)) {
    ++producer_waits;
    not_full.wait(lock);
  }
  queue.push_back(item);
  lock.unlock();
  not_empty.notify_one();
}

long pop() {
  std::unique_lock<std::mutex> lock(queue_mutex);
  while (queue.empty()) {
    ++consumer_waits;
    not_empty.wait(lock);
  }
  const long item = queue.front();
  queue.pop_front();
  lock.unlock();
  not_full.notify_one();
  return item;
}

}  // namespace

extern "C" {

void produce_items(void) {
  pthread_setname_np(pthread_self(), "producer");
  for (long i = 0; i < items; ++i) {
    compute(produce_us);
    push(i);
  }
  for (long c = 0; c < consumers; ++c) push(kEnd);
}

void consume_items(void) {
  pthread_setname_np(pthread_self(), "consumer");
  for (;;) {
    const long item = pop();
    if (item == kEnd) break;
    compute(consume_us);
    ++consumed;
  }
}

}  // extern "C"

int main(int argc, char** argv) {
  const double start = now_us();
  struct sample_flag flags[] = {
      {"--items", &items, 0, 100000000},          {"--produce-us", &produce_us, 0, 10000000},
      {"--consume-us", &consume_us, 0, 10000000}, {"--consumers", &consumers, 1, 64},
      {"--queue", &queue_capacity, 1, 1000000},
  };
  if (!parse_sample_flags(argc, argv, flags, sizeof flags / sizeof flags[0])) return 2;
  quartz_name_object(queue_mutex.native_handle(), "queue");
  quartz_name_object(not_full.native_handle(), "queue.not_full");
  quartz_name_object(not_empty.native_handle(), "queue.not_empty");
  std::vector<std::thread> threads;
  for (long c = 0; c < consumers; ++c) threads.emplace_back(consume_items);
  std::thread producer(produce_items);
  producer.join();
  for (std::thread& t : threads) t.join();
  std::printf("items=%ld\n", consumed.load());
  std::printf("producer_waits=%ld\n", producer_waits.load());
  std::printf("consumer_waits=%ld\n", consumer_waits.load());
  std::printf("elapsed_s=%.6f\n", (now_us() - start) / 1e6);
  return 0;
}
