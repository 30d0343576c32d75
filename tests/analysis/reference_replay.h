// Test helper: the replay computed the slow, obvious way, for checking the streaming one.
// It takes every thread's complete list of steps, links each waiting step to the steps it
// waits for by searching the whole graph, and advances time from one change to the next,
// recomputing every thread's processor share each time. No keys, no virtual time, no
// streaming: if both agree, the streaming replay's bookkeeping is right. Groups of K whole
// processors place threads as simulation.cpp's place() documents, recounted from scratch.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "analysis/simulation.h"
#include "analysis/trace_steps.h"
#include "format/capture_format.h"

namespace quartz::analysis::test_support {

struct StepRef {
  uint32_t thread;
  size_t index;
};

// The steps a sync step waits for (all must be done), as the replay pairs them.
inline std::vector<StepRef> producers_of(const std::vector<std::vector<Step>>& steps,
                                         uint32_t thread, const Step& s) {
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
        find([&](uint32_t t, const Step& p) {
          return p.type == Type::thread_exit && t == s.object;
        });
      }
      break;
    case Type::lock_acquire:
      if (s.depends) {
        const uint32_t released =
            s.object_kind == capture::kRwlockRead ? s.sequence : s.sequence - 1;
        find([&](uint32_t, const Step& p) {
          return p.type == Type::lock_release && p.object == s.object && p.sequence == released &&
                 p.object_kind != capture::kRwlockRead;
        });
      }
      break;
    case Type::cond_wake:
      if (s.depends) {
        find([&](uint32_t, const Step& p) {
          return (p.type == Type::cond_signal || p.type == Type::cond_broadcast) &&
                 p.object == s.object && p.sequence == s.sequence;
        });
      }
      break;
    case Type::barrier_arrive:
      if (s.aux > 0) {
        find([&](uint32_t, const Step& p) {
          return p.type == Type::barrier_arrive && p.object == s.object &&
                 p.sequence / s.aux == s.sequence / s.aux;
        });
      }
      break;
    case Type::sem_acquire:
      if (s.depends) {
        find([&](uint32_t, const Step& p) {
          return p.type == Type::sem_post && p.object == s.object &&
                 p.sequence == s.sequence - s.aux;
        });
      }
      break;
    default:
      break;
  }
  return found;
}

// Predicted elapsed ns: the program's end (or the last thread's).
inline double reference_replay(const std::vector<std::vector<Step>>& steps,
                               const SimulationConfig& config) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const size_t n = steps.size();
  std::vector<size_t> next(n, 0);
  std::vector<double> remaining(n, 0), delay_until(n, -1), delay_after(n, 0);
  std::vector<bool> computing(n, false), finished(n, false);
  std::vector<std::vector<double>> done_at(n);
  for (size_t t = 0; t < n; ++t) done_at[t].assign(steps[t].size(), kNever);
  auto group = [&](size_t t) {
    return t < config.group_of_thread.size() ? config.group_of_thread[t]
                                             : static_cast<uint32_t>(config.cores.size() + t);
  };
  auto cores = [&](uint32_t g) { return g < config.cores.size() ? config.cores[g] : 1.0; };
  auto lanes_of = [&](uint32_t g) {
    const double c = cores(g);
    return c >= 2 && c == std::floor(c) ? static_cast<uint32_t>(c) : 0u;
  };
  constexpr double kBalanceNs = 4e6;  // as simulation.cpp
  std::vector<uint32_t> lane(n, 0);
  std::vector<double> on_lane_since(n, 0), left_lane_at(n, -1);
  std::vector<bool> placed(n, false);  // computing since before `now`, on lane[t]
  // By group and lane: the load after the last placement, and since when it is idle.
  std::vector<std::vector<uint32_t>> placed_load(config.cores.size());
  std::vector<std::vector<double>> idle_since(config.cores.size());
  // Threads computing on lane `l` of group `g`.
  auto load = [&](uint32_t g, uint32_t l) {
    uint32_t count = 0;
    for (size_t t = 0; t < n; ++t)
      count += computing[t] && placed[t] && group(t) == g && lane[t] == l;
    return count;
  };
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
        if (s.type == trace::Type::thread_start && s.object == trace::kNoThread &&
            s.observed_ns > now) {
          delay_until[t] = s.observed_ns;
          continue;
        }
        const auto producers = producers_of(steps, static_cast<uint32_t>(t), s);
        bool ready = true;
        for (const StepRef& p : producers) {
          if (!(p.thread == t && p.index == next[t]) && done_at[p.thread][p.index] > now)
            ready = false;
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
    // Place the threads that started computing: their last lane if idle, else the first
    // least loaded (their own on a tie); then idle lanes (as simulation.cpp says when) take the
    // thread put last on the busiest.
    for (uint32_t g = 0; g < config.cores.size(); ++g) {
      placed_load[g].resize(lanes_of(g), 0);
      idle_since[g].resize(lanes_of(g), 0);
      for (uint32_t l = 0; l < lanes_of(g); ++l) {
        if (load(g, l) == 0 && placed_load[g][l] > 0) idle_since[g][l] = now;
      }
    }
    for (size_t t = 0; t < n; ++t) {  // it never stopped: it stays
      if (computing[t] && !placed[t] && lanes_of(group(t)) > 0 && left_lane_at[t] == now) {
        placed[t] = true;
      }
    }
    std::vector<std::vector<bool>> was_idle(config.cores.size());
    for (uint32_t g = 0; g < config.cores.size(); ++g) {
      for (uint32_t l = 0; l < lanes_of(g); ++l) was_idle[g].push_back(load(g, l) == 0);
    }
    for (size_t t = 0; t < n; ++t) {
      const uint32_t k = lanes_of(group(t));
      if (!computing[t] || placed[t] || k == 0) continue;
      const uint32_t g = group(t);
      uint32_t best = lane[t];
      if (!was_idle[g][best]) {
        const auto idle = std::find(was_idle[g].begin(), was_idle[g].end(), true);
        if (idle != was_idle[g].end()) {
          best = static_cast<uint32_t>(idle - was_idle[g].begin());
        } else {
          for (uint32_t l = 0; l < k; ++l) {
            if (load(g, l) < load(g, best)) best = l;
          }
        }
      }
      lane[t] = best;
      on_lane_since[t] = now;
      placed[t] = true;
    }
    double pull_at = kNever;
    for (uint32_t g = 0; g < config.cores.size(); ++g) {
      const uint32_t k = lanes_of(g);
      for (;;) {
        uint32_t idle = k, busiest = 0;
        for (uint32_t l = 0; l < k; ++l) {
          if (load(g, l) > load(g, busiest)) busiest = l;
        }
        if (k == 0 || load(g, busiest) < 2) break;
        for (uint32_t l = 0; l < k && idle == k; ++l) {
          if (load(g, l) > 0) continue;
          const double at = idle_since[g][l] == now ? now : idle_since[g][l] + kBalanceNs;
          if (at <= now) {
            idle = l;
          } else {
            pull_at = std::min(pull_at, at);
          }
        }
        if (idle == k) break;
        size_t moved = n;
        for (size_t t = 0; t < n; ++t) {
          if (computing[t] && placed[t] && group(t) == g && lane[t] == busiest &&
              (moved == n || on_lane_since[t] >= on_lane_since[moved])) {
            moved = t;
          }
        }
        lane[moved] = idle;
        on_lane_since[moved] = now;
      }
      for (uint32_t l = 0; l < k; ++l) placed_load[g][l] = load(g, l);
    }
    auto rate_of = [&](size_t t, const std::vector<uint32_t>& runnable) {
      if (lanes_of(group(t)) > 0) return 1.0 / load(group(t), lane[t]);
      return std::min(1.0, cores(group(t)) / runnable[group(t)]);
    };
    // The next change: a computation or a delay ending.
    std::vector<uint32_t> runnable(config.cores.size() + n, 0);
    for (size_t t = 0; t < n; ++t) {
      if (computing[t]) ++runnable[group(t)];
    }
    double dt = kNever;
    for (size_t t = 0; t < n; ++t) {
      if (computing[t]) {
        dt = std::min(dt, remaining[t] / rate_of(t, runnable));
      }
      if (delay_until[t] > now) dt = std::min(dt, delay_until[t] - now);
    }
    dt = std::min(dt, pull_at - now);
    if (dt == kNever) break;
    std::vector<double> rates(n, 0);  // before any computation ends and changes the loads
    for (size_t t = 0; t < n; ++t) {
      if (computing[t]) rates[t] = rate_of(t, runnable);
    }
    now += dt;
    for (size_t t = 0; t < n; ++t) {
      if (!computing[t]) continue;
      remaining[t] -= rates[t] * dt;
      if (remaining[t] <= 1e-6) {
        computing[t] = false;
        placed[t] = false;
        left_lane_at[t] = now;
        if (delay_after[t] > 0) delay_until[t] = now + delay_after[t];
      }
    }
  }
  if (end >= 0) return end;
  return now;
}

}  // namespace quartz::analysis::test_support
