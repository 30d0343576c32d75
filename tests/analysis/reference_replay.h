// Test helper: the replay computed the slow, obvious way, for checking the streaming one.
// It takes every thread's complete list of steps, links each waiting step to the steps it
// waits for by searching the whole graph, and advances time from one change to the next,
// recomputing every thread's processor share each time. No keys, no virtual time, no
// streaming: if both agree, the streaming replay's bookkeeping is right.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "analysis/simulation.h"
#include "analysis/trace_steps.h"
#include "profile/capture_format.h"

namespace quartz::analysis::test_support {

struct StepRef {
  uint32_t thread;
  size_t index;
};

// The steps a sync step waits for (all must be done), as the replay pairs them.
inline std::vector<StepRef> producers_of(const std::vector<std::vector<Step>>& steps, uint32_t thread,
                                         const Step& s) {
  using trace::Type;
  std::vector<StepRef> found;
  auto find = [&](auto match) {
    for (uint32_t t = 0; t < steps.size(); ++t) {
      for (size_t i = 0; i < steps[t].size(); ++i) {
        const Step& p = steps[t][i];
        if (p.kind == Step::sync && match(t, p)) found.push_back({t, i});
      }
    }
  };
  if (s.kind != Step::sync) return found;
  switch (s.type) {
    case Type::thread_start:
      if (s.object != trace::kNoThread) {
        find([&](uint32_t, const Step& p) { return p.type == Type::create && p.object == thread; });
      }
      break;
    case Type::join_begin:
    case Type::join_end:
      if (s.depends) {
        find([&](uint32_t t, const Step& p) { return p.type == Type::thread_exit && t == s.object; });
      }
      break;
    case Type::lock_acquire:
      if (s.depends) {
        const uint32_t released = s.object_kind == capture::kRwlockRead ? s.sequence : s.sequence - 1;
        find([&](uint32_t, const Step& p) {
          return p.type == Type::lock_release && p.object == s.object && p.sequence == released &&
                 p.object_kind != capture::kRwlockRead;
        });
      }
      break;
    case Type::cond_wake:
      if (s.depends) {
        find([&](uint32_t, const Step& p) {
          return (p.type == Type::cond_signal || p.type == Type::cond_broadcast) && p.object == s.object &&
                 p.sequence == s.sequence;
        });
      }
      break;
    case Type::barrier_arrive:
      if (s.aux > 0) {
        find([&](uint32_t, const Step& p) {
          return p.type == Type::barrier_arrive && p.object == s.object && p.sequence / s.aux == s.sequence / s.aux;
        });
      }
      break;
    case Type::sem_acquire:
      if (s.depends) {
        find([&](uint32_t, const Step& p) {
          return p.type == Type::sem_post && p.object == s.object && p.sequence == s.sequence - s.aux;
        });
      }
      break;
    default:
      break;
  }
  return found;
}

// Predicted elapsed ns: the program's end (or the last thread's).
inline double reference_replay(const std::vector<std::vector<Step>>& steps, const SimulationConfig& config) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const size_t n = steps.size();
  std::vector<size_t> next(n, 0);
  std::vector<double> remaining(n, 0), delay_until(n, -1), delay_after(n, 0);
  std::vector<bool> computing(n, false), finished(n, false);
  std::vector<std::vector<double>> done_at(n);
  for (size_t t = 0; t < n; ++t) done_at[t].assign(steps[t].size(), kNever);
  auto group = [&](size_t t) {
    return t < config.group_of_thread.size() ? config.group_of_thread[t] : static_cast<uint32_t>(config.cores.size() + t);
  };
  auto cores = [&](uint32_t g) { return g < config.cores.size() ? config.cores[g] : 1.0; };
  double now = 0, end = -1;
  for (;;) {
    // Take every step that can be taken now.
    bool moved = true;
    while (moved) {
      moved = false;
      for (size_t t = 0; t < n; ++t) {
        if (finished[t] || computing[t] || delay_until[t] > now) continue;
        if (delay_until[t] >= 0) {
          delay_until[t] = -1;
        }
        if (next[t] == steps[t].size()) {
          finished[t] = true;
          moved = true;
          continue;
        }
        const Step& s = steps[t][next[t]];
        if (s.kind == Step::work) {
          done_at[t][next[t]] = now;  // (work steps are nobody's producers)
          ++next[t];
          if (s.cpu_ns > 0) {
            computing[t] = true;
            remaining[t] = s.cpu_ns;
            delay_after[t] = s.delay_ns;
          } else if (s.delay_ns > 0) {
            delay_until[t] = now + s.delay_ns;
          }
          moved = true;
          continue;
        }
        if (s.type == trace::Type::thread_start && s.object == trace::kNoThread && s.observed_ns > now) {
          delay_until[t] = s.observed_ns;
          continue;
        }
        const auto producers = producers_of(steps, static_cast<uint32_t>(t), s);
        bool ready = true;
        for (const StepRef& p : producers) {
          if (!(p.thread == t && p.index == next[t]) && done_at[p.thread][p.index] > now) ready = false;
        }
        if (s.type == trace::Type::barrier_arrive) {
          // Its own arrival counts at once: mark it, then wait for the others.
          done_at[t][next[t]] = std::min(done_at[t][next[t]], now);
        }
        if (!ready) continue;
        done_at[t][next[t]] = std::min(done_at[t][next[t]], now);
        if (s.type == trace::Type::process_end) end = now;
        ++next[t];
        moved = true;
      }
    }
    // The next change: a computation or a delay ending.
    std::vector<uint32_t> runnable(config.cores.size() + n, 0);
    for (size_t t = 0; t < n; ++t) {
      if (computing[t]) ++runnable[group(t)];
    }
    double dt = kNever;
    for (size_t t = 0; t < n; ++t) {
      if (computing[t]) {
        const double rate = std::min(1.0, cores(group(t)) / runnable[group(t)]);
        dt = std::min(dt, remaining[t] / rate);
      }
      if (delay_until[t] > now) dt = std::min(dt, delay_until[t] - now);
    }
    if (dt == kNever) break;
    now += dt;
    for (size_t t = 0; t < n; ++t) {
      if (!computing[t]) continue;
      const double rate = std::min(1.0, cores(group(t)) / runnable[group(t)]);
      remaining[t] -= rate * dt;
      if (remaining[t] <= 1e-6) {
        computing[t] = false;
        if (delay_after[t] > 0) delay_until[t] = now + delay_after[t];
      }
    }
  }
  if (end >= 0) return end;
  return now;
}

}  // namespace quartz::analysis::test_support
