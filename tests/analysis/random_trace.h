// Test helper: random small programs "recorded" the way the runtime would trace them. Main
// (thread 0) starts W workers and joins them; each worker works, takes locks (work inside),
// and meets the others at barriers. The recording runs every thread on a processor of its
// own with first-come first-served locks, so its elapsed time is known exactly.
#pragma once

#include <algorithm>
#include <deque>
#include <random>
#include <vector>

#include "format/capture_format.h"
#include "tests/testing/trace_builder.h"

namespace quartz::analysis::test_support {

struct RandomProgram {
  std::vector<BuiltRecord> records;  // each thread's, in order
  uint32_t threads = 0;
  double elapsed_ms = 0;
};

inline RandomProgram random_program(std::mt19937& random) {
  using trace::Type;
  enum Op { work, lock, barrier };
  struct Step {
    Op op;
    double ms;      // work: time; lock: time held
    uint32_t lock;  // lock: which
  };
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(random);
  };
  auto pick = [&](uint32_t n) { return std::uniform_int_distribution<uint32_t>(0, n - 1)(random); };
  const uint32_t workers = 1 + pick(4), locks = 1 + pick(2), barriers = pick(3);
  std::vector<std::vector<Step>> program(workers + 1);
  for (uint32_t w = 1; w <= workers; ++w) {
    for (uint32_t phase = 0; phase <= barriers; ++phase) {
      const uint32_t ops = 1 + pick(4);
      for (uint32_t i = 0; i < ops; ++i) {
        if (pick(2)) {
          program[w].push_back({work, uniform(0.5, 10), 0});
        } else {
          program[w].push_back({lock, uniform(0.5, 5), pick(locks)});
        }
      }
      if (phase < barriers) program[w].push_back({barrier, 0, 0});
    }
  }

  // Record: each worker on its own processor; locks go first come, first served.
  struct Worker {
    size_t next = 0;
    double ready = 0;
    bool blocked = false;
    double cpu = 0;
    std::vector<BuiltRecord> out;
  };
  std::vector<Worker> w(workers + 1);
  struct Lock {
    bool held = false;
    uint32_t acquisitions = 0;
    std::deque<uint32_t> queue;
  };
  std::vector<Lock> lock_state(locks);
  std::vector<uint32_t> at_barrier;
  uint32_t arrivals = 0;
  constexpr uint64_t kLockBase = 0x1000, kBarrier = 0x9000;
  auto emit = [&](uint32_t t, Type type, uint8_t kind, uint64_t object, uint32_t sequence,
                  uint32_t aux, double at) {
    BuiltRecord r;
    r.thread = t;
    r.type = type;
    r.kind = kind;
    r.time_ms = at;
    r.object = object;
    r.sequence = sequence;
    r.aux = aux;
    w[t].out.push_back(r);
    BuiltRecord c;
    c.thread = t;
    c.type = Type::cpu;
    c.time_ms = at;
    c.cpu_ms = w[t].cpu;
    w[t].out.push_back(c);
  };
  // A held lock's remaining hold and release are a second step: remember it.
  std::vector<int> releasing(workers + 1, -1);
  for (uint32_t t = 1; t <= workers; ++t) emit(t, Type::thread_start, 0, 0, 0, 0, 0);
  for (;;) {
    uint32_t chosen = 0;
    for (uint32_t t = 1; t <= workers; ++t) {
      if (w[t].blocked || (w[t].next == program[t].size() && releasing[t] < 0)) continue;
      if (chosen == 0 || w[t].ready < w[chosen].ready) chosen = t;
    }
    if (chosen == 0) break;
    Worker& me = w[chosen];
    const double now = me.ready;
    if (releasing[chosen] >= 0) {  // the end of a hold
      Lock& l = lock_state[releasing[chosen]];
      emit(chosen, Type::lock_release, capture::kMutex, kLockBase + releasing[chosen],
           l.acquisitions, 0, now);
      l.held = false;
      if (!l.queue.empty()) {
        const uint32_t next = l.queue.front();
        l.queue.pop_front();
        l.held = true;
        ++l.acquisitions;
        emit(next, Type::lock_acquire, capture::kMutex, kLockBase + releasing[chosen],
             l.acquisitions, 0, now);
        w[next].blocked = false;
        const Step& held = program[next][w[next].next - 1];
        w[next].ready = now + held.ms;
        w[next].cpu += held.ms;
        releasing[next] = static_cast<int>(held.lock);
      }
      releasing[chosen] = -1;
      continue;
    }
    const Step s = program[chosen][me.next++];
    if (s.op == work) {
      me.ready = now + s.ms;
      me.cpu += s.ms;
    } else if (s.op == lock) {
      Lock& l = lock_state[s.lock];
      if (!l.held) {
        l.held = true;
        ++l.acquisitions;
        emit(chosen, Type::lock_acquire, capture::kMutex, kLockBase + s.lock, l.acquisitions, 0,
             now);
        me.ready = now + s.ms;
        me.cpu += s.ms;
        releasing[chosen] = static_cast<int>(s.lock);
      } else {
        emit(chosen, Type::lock_request, capture::kMutex, kLockBase + s.lock, 0, 0, now);
        l.queue.push_back(chosen);
        me.blocked = true;
      }
    } else {
      emit(chosen, Type::barrier_arrive, capture::kBarrier, kBarrier, arrivals, workers, now);
      const uint32_t generation = arrivals / workers;
      ++arrivals;
      at_barrier.push_back(chosen);
      me.blocked = true;
      if (at_barrier.size() == workers) {
        for (uint32_t t : at_barrier) {
          emit(t, Type::barrier_depart, capture::kBarrier, kBarrier, generation, workers, now);
          w[t].blocked = false;
          w[t].ready = now;
        }
        at_barrier.clear();
      }
    }
  }
  RandomProgram p;
  p.threads = workers + 1;
  double last = 0;
  for (uint32_t t = 1; t <= workers; ++t) {
    emit(t, Type::thread_exit, 0, 0, 0, 0, w[t].ready);
    last = std::max(last, w[t].ready);
  }
  // Main: starts everyone at 0, joins them in order, ends when the last has.
  w[0].out.clear();
  emit(0, Type::thread_start, 0, trace::kNoThread, 0, 0, 0);
  for (uint32_t t = 1; t <= workers; ++t) emit(0, Type::create, 0, t, 0, 0, 0);
  double joined = 0;
  for (uint32_t t = 1; t <= workers; ++t) {
    emit(0, Type::join_begin, capture::kJoin, t, 0, 0, joined);
    joined = std::max(joined, w[t].ready);
    emit(0, Type::join_end, capture::kJoin, t, 0, 0, joined);
  }
  emit(0, Type::process_end, 0, 0, 0, 0, joined);
  emit(0, Type::thread_exit, 0, 0, 0, 0, joined);
  for (uint32_t t = 0; t <= workers; ++t) {
    p.records.insert(p.records.end(), w[t].out.begin(), w[t].out.end());
  }
  p.elapsed_ms = last;
  return p;
}

}  // namespace quartz::analysis::test_support
