#include "analysis/wake_latency.h"

#include <tsl/robin_map.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <vector>

#include "format/capture_format.h"

namespace quartz::analysis {
namespace {

using trace::Type;

// Enough for a mean within a microsecond or two; the rest of the trace is not read.
constexpr uint64_t kEnoughWakeUps = 4096;
constexpr uint64_t kLongestNs = 1000000;  // longer: waited for a processor or a lock
// Waker events older than this (trace time) are forgotten once the tables are large, and
// wake-ups whose waker has not come by then are dropped.
constexpr uint64_t kForgetNs = 100000000;
constexpr size_t kLargeTable = 1 << 16;

// A waker's event: a signal, a release, a post.
struct Waker {
  uint64_t object = 0;
  uint32_t sequence = 0;
  uint8_t what = 0;  // 0 signal, 1 release, 2 post
  bool operator==(const Waker&) const = default;
};

struct WakerHash {
  size_t operator()(const Waker& w) const {
    uint64_t h = w.object * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t{w.sequence} << 2 | w.what) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

// A wake-up whose waker is known, and when it woke.
struct WakeUp {
  Waker waker;
  uint64_t woke_ns = 0;
  uint64_t waited_since_ns = 0;  // the waker must come after this (its request, its wait)
};

// What each thread is waiting for, as its records go by.
struct ThreadWait {
  uint64_t object = 0;
  uint32_t signals = 0;  // a condition wait: signals when it began
  uint64_t since_ns = 0;
  Type type{};
  bool waiting = false;
};

class Measure {
 public:
  bool enough() const { return latencies_.size() >= kEnoughWakeUps; }

  void add(const std::vector<profile::TraceRecord>& chunk) {
    for (const profile::TraceRecord& r : chunk) {
      if (!trace::is_sync_event(r.type)) continue;
      latest_ = std::max(latest_, r.time_ns);
      switch (r.type) {
        case Type::cond_signal:
        case Type::cond_broadcast:
          add_waker(r, {r.object, r.sequence, 0});
          break;
        case Type::lock_release:
          if (r.kind != capture::kRwlockRead) add_waker(r, {r.object, r.sequence, 1});
          break;
        case Type::sem_post:
          add_waker(r, {r.object, r.sequence, 2});
          break;
        default:
          break;
      }
    }
    // Wake-ups of earlier chunks whose waker had not been drained yet.
    std::vector<WakeUp> waiting;
    waiting.swap(pending_);
    for (const WakeUp& w : waiting) {
      if (w.woke_ns + kForgetNs >= latest_) resolve(w);
    }
    for (const profile::TraceRecord& r : chunk) {
      if (trace::is_sync_event(r.type)) wake_up_of(r);
    }
    if (wakers_.size() > kLargeTable && latest_ > kForgetNs) forget_old_wakers();
  }

  WakeLatency result() {
    WakeLatency out;
    out.wake_ups = latencies_.size();
    if (latencies_.size() < kMinimumWakeUps) return out;
    std::sort(latencies_.begin(), latencies_.end());
    const uint64_t fast = 2 * latencies_[latencies_.size() / 10];
    const auto slow = std::upper_bound(latencies_.begin(), latencies_.end(), fast);
    if (slow == latencies_.end()) return out;
    out.idle_ns = static_cast<double>(slow[(latencies_.end() - slow) / 2]);
    out.idle_wake_ups = static_cast<uint64_t>(latencies_.end() - slow);
    return out;
  }

 private:
  void wake_up_of(const profile::TraceRecord& r) {
    if (r.thread >= threads_.size()) threads_.resize(r.thread + 1);
    ThreadWait& t = threads_[r.thread];
    switch (r.type) {
      case Type::cond_wait:
        t = ThreadWait{r.object, r.sequence, r.time_ns, r.type, true};
        return;
      case Type::lock_request:
        t = ThreadWait{r.object, 0, r.time_ns, r.type, true};
        return;
      case Type::sem_wait_begin:
        t = ThreadWait{r.object, 0, r.time_ns, r.type, true};
        return;
      case Type::cond_wake:
        if (t.waiting && t.type == Type::cond_wait && t.object == r.object &&
            r.sequence == t.signals + 1) {
          resolve({{r.object, r.sequence, 0}, r.time_ns, t.since_ns});
        }
        break;
      case Type::lock_acquire:
        if (t.waiting && t.type == Type::lock_request && t.object == r.object &&
            r.kind != capture::kRwlockRead && r.sequence > 1) {
          resolve({{r.object, r.sequence - 1, 1}, r.time_ns, t.since_ns});
        }
        break;
      case Type::sem_acquire:
        if (t.waiting && t.type == Type::sem_wait_begin && t.object == r.object &&
            r.sequence > r.aux) {
          resolve({{r.object, r.sequence - r.aux, 2}, r.time_ns, t.since_ns});
        }
        break;
      default:
        return;
    }
    // A wake's acquisition of the mutex follows at once: it is part of the same wake-up.
    if (r.type != Type::cond_wake) t.waiting = false;
    if (r.type == Type::cond_wake) t = ThreadWait{};
  }

  void add_waker(const profile::TraceRecord& r, const Waker& w) {
    wakers_[w] = r.time_ns;
    if (r.thread >= added_.size()) added_.resize(r.thread + 1);
    added_[r.thread].push_back({r.time_ns, w});
  }

  // Forgets the wakers older than kForgetNs before the latest event: from the front of
  // each thread's list, in the order it made them (a scan of the whole table at every
  // chunk was four fifths of this pass on 100,000 mutexes taken in turn).
  void forget_old_wakers() {
    for (std::deque<std::pair<uint64_t, Waker>>& added : added_) {
      while (!added.empty() && added.front().first + kForgetNs < latest_) {
        const auto it = wakers_.find(added.front().second);
        if (it != wakers_.end() && it->second == added.front().first) wakers_.erase(it);
        added.pop_front();
      }
    }
  }

  // Counts `w` if its waker has been read; else keeps it for the chunks to come.
  void resolve(const WakeUp& w) {
    const auto it = wakers_.find(w.waker);
    if (it == wakers_.end()) {
      if (pending_.size() < kLargeTable) pending_.push_back(w);
      return;
    }
    const uint64_t woken_at = it->second;
    // A waker before the wait began found the lock or the post there: no wake-up.
    if (woken_at < w.waited_since_ns || w.woke_ns < woken_at) return;
    const uint64_t latency = w.woke_ns - woken_at;
    if (latency > kLongestNs) return;
    latencies_.push_back(latency);
  }

  // Open addressing: one insertion per release, post and signal of the trace, most never
  // looked up again (a node per entry took a fifth of `quartz predict`).
  tsl::robin_map<Waker, uint64_t, WakerHash> wakers_;
  // Each thread's wakers as it made them (its events come in order), with their times.
  std::vector<std::deque<std::pair<uint64_t, Waker>>> added_;
  std::vector<ThreadWait> threads_;
  std::vector<WakeUp> pending_;      // wake-ups whose waker is still to be read
  uint64_t latest_ = 0;              // the latest event time read
  std::vector<uint64_t> latencies_;  // ns
};

}  // namespace

WakeLatency measure_wake_latency(std::unique_ptr<profile::TraceSource> source,
                                 const std::atomic<bool>* stop) {
  profile::TraceReader reader(std::move(source));
  Measure m;
  std::vector<profile::TraceRecord> chunk;
  while (!m.enough() && !(stop && stop->load(std::memory_order_relaxed)) &&
         reader.next_chunk(chunk)) {
    m.add(chunk);
  }
  return m.result();
}

}  // namespace quartz::analysis
