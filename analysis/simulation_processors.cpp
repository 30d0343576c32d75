// Processors: how threads share them, and where the threads of a pool of K run (as Linux
// places and balances them).
#include <algorithm>
#include <cmath>

#include "analysis/simulation_state.h"

namespace quartz::analysis {

namespace {

// Linux's balancing, as the replay of a pool of processors follows it: a processor going
// idle takes a waiting thread from a busy one at once (newly-idle balancing); one that was
// idle already when another got two threads waits for the periodic balancing, at most a
// scheduler tick (4 ms at the usual 250 Hz) after it went idle.
constexpr double kBalanceNs = 4e6;

}  // namespace

void Simulation::State::add_pool(double cores) {
  Pool& pool = pools.emplace_back();
  // A whole number of processors: one lane each. Otherwise one lane sharing them all.
  const bool whole = cores >= 2 && cores == std::floor(cores);
  if (whole) shared_pools.push_back(static_cast<uint32_t>(pools.size() - 1));
  for (double c = 0; c < (whole ? cores : 1); ++c) {
    pool.lanes.push_back(static_cast<uint32_t>(lanes.size()));
    lanes.emplace_back().cores = whole ? 1 : cores;
  }
}

// Starts the thread's computation (or spin) on `lane`.
void Simulation::State::attach(SimThread& t, uint32_t index, uint32_t lane) {
  Lane& l = lanes[lane];
  bring_up_to_date(l);
  ++l.runnable;
  t.lane = lane;
  t.on_lane_since = now;
  t.placing = false;
  if (t.mode == SimThread::computing) {
    t.finish_tag = l.vtime + t.remaining_ns;
    l.finishing.emplace(t.finish_tag, index);
  }
}

void Simulation::State::detach(SimThread& t) {
  Lane& l = lanes[t.lane];
  bring_up_to_date(l);
  if (--l.runnable == 0) l.idle_since = now;
  t.left_lane_at = now;
  if (t.mode == SimThread::computing) t.remaining_ns = std::max(0.0, t.finish_tag - l.vtime);
}

void Simulation::State::add_runnable(SimThread& t, uint32_t index) {
  t.counted = true;
  if (pools[t.pool].lanes.size() == 1) {
    attach(t, index, t.lane);
  } else {
    t.placing = true;
    placing.push_back(index);
  }
}

void Simulation::State::remove_runnable(SimThread& t) {
  if (!t.placing) detach(t);
  t.placing = false;
  t.counted = false;
}

// Once everything at `now` has happened, the threads of pools that became runnable are
// placed (in index order: the result depends on who is runnable, not on the order events
// were handled in), then the pools are balanced.
void Simulation::State::place() {
  if (shared_pools.empty()) return;
  std::sort(placing.begin(), placing.end());
  placing.erase(std::unique(placing.begin(), placing.end()), placing.end());
  // A thread that stopped being runnable at this very moment never stopped (the end of
  // a step, a lock free at once): it stays where it is. Then the wake-ups, which all see
  // the processors as they were before them (two woken together both find the same idle
  // one, as Linux's wake-up path does).
  for (uint32_t index : placing) {
    SimThread& t = threads[index];
    if (t.placing && t.left_lane_at == now) {
      const double since = t.on_lane_since;
      attach(t, index, t.lane);
      t.on_lane_since = since;
    }
  }
  for (uint32_t pool : shared_pools) {
    for (uint32_t lane : pools[pool].lanes) lanes[lane].was_idle = lanes[lane].runnable == 0;
  }
  for (uint32_t index : placing) {
    SimThread& t = threads[index];
    if (t.placing) attach(t, index, wake_lane(t));
  }
  placing.clear();
  next_pull = kInfinity;
  for (uint32_t pool : shared_pools) balance(pools[pool]);
}

// Where a thread that wakes up goes, as Linux wakes a thread: its last lane if idle, else
// the first idle one, else the first least loaded (its own on a tie).
uint32_t Simulation::State::wake_lane(const SimThread& t) {
  const std::vector<uint32_t>& pool = pools[t.pool].lanes;
  if (lanes[t.lane].was_idle) return t.lane;
  for (uint32_t lane : pool) {
    if (lanes[lane].was_idle) return lane;
  }
  uint32_t best = t.lane;
  for (uint32_t lane : pool) {
    if (lanes[lane].runnable < lanes[best].runnable) best = lane;
  }
  return best;
}

// As Linux balances: idle lanes (idle long enough, lowest first) take from the busiest
// lane (lowest first), while it has two or more, the thread put there last (the
// highest-numbered on a tie): a thread that has been running there has a warm cache.
void Simulation::State::balance(const Pool& pool) {
  for (;;) {
    uint32_t idle = kNone, busiest = kNone;
    for (uint32_t lane : pool.lanes) {
      if (busiest == kNone || lanes[lane].runnable > lanes[busiest].runnable) busiest = lane;
    }
    if (lanes[busiest].runnable < 2) return;
    for (uint32_t lane : pool.lanes) {
      if (lanes[lane].runnable > 0) continue;
      const Lane& l = lanes[lane];
      const double at = l.idle_since == now ? now : l.idle_since + kBalanceNs;
      if (at <= now) {
        idle = lane;
        break;
      }
      next_pull = std::min(next_pull, at);
    }
    if (idle == kNone) return;
    uint32_t moved = kNone;
    for (uint32_t i = 0; i < threads.size(); ++i) {
      const SimThread& t = threads[i];
      if (t.counted && !t.placing && t.lane == busiest &&
          (moved == kNone || t.on_lane_since >= threads[moved].on_lane_since)) {
        moved = i;
      }
    }
    detach(threads[moved]);
    attach(threads[moved], moved, idle);
  }
}

}  // namespace quartz::analysis
