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
    Lane& lane = lanes.emplace_back();
    // A fraction of the machine has no turns to take: it stays fairly shared.
    lane.sliced = config.model.sharing == Sharing::slices && (whole || cores == 1);
    lane.cores = (whole ? 1 : cores) * config.capacity;
  }
}

// Starts the thread's computation (or spin) on `lane`.
void Simulation::State::attach(SimThread& t, uint32_t index, uint32_t lane) {
  Lane& l = lanes[lane];
  ++l.runnable;
  t.lane = lane;
  t.on_lane_since = now;
  t.placing = false;
  if (l.sliced) {
    l.arriving.push_back(index);
    if (!l.unsettled) unsettled.push_back(lane);
    l.unsettled = true;
    return;
  }
  bring_up_to_date(l);
  if (t.mode == SimThread::computing) {
    t.finish_tag = l.vtime + t.remaining_ns;
    l.finishing.emplace(t.finish_tag, index);
  }
}

void Simulation::State::detach(SimThread& t) {
  Lane& l = lanes[t.lane];
  if (--l.runnable == 0) l.idle_since = now;
  t.left_lane_at = now;
  if (l.sliced) {
    const auto index = static_cast<uint32_t>(&t - threads.data());
    if (l.running == index) {
      count_progress(l);
      l.running = kNone;
      l.vacated = index;
      l.vacated_at = now;
      if (!l.unsettled) unsettled.push_back(t.lane);
      l.unsettled = true;
    } else if (auto it = std::find(l.turns.begin(), l.turns.end(), index); it != l.turns.end()) {
      l.turns.erase(it);
    } else {
      std::erase(l.arriving, index);
    }
    return;
  }
  bring_up_to_date(l);
  if (t.mode == SimThread::computing) t.remaining_ns = std::max(0.0, t.finish_tag - l.vtime);
}

// The running thread's processor time since it was last counted (a spinner needs none).
void Simulation::State::count_progress(Lane& l) {
  SimThread& t = threads[l.running];
  if (t.mode == SimThread::computing) {
    t.remaining_ns = std::max(0.0, t.remaining_ns - (now - l.ran_from) * l.cores);
  }
  l.ran_from = now;
}

// When the running thread ends its step, or its turn if another waits for the processor.
double Simulation::State::next_turn_event(const Lane& l) const {
  if (l.running == kNone) return kInfinity;
  const SimThread& t = threads[l.running];
  double at = t.mode == SimThread::computing ? l.ran_from + t.remaining_ns / l.cores : kInfinity;
  if (!l.turns.empty()) at = std::min(at, l.slice_end);
  return at;
}

// At `now`: the running thread's step is done (it leaves, as a step's end does), or its
// turn is over and another is waiting (it goes to the back).
void Simulation::State::end_turn(uint32_t lane) {
  Lane& l = lanes[lane];
  if (l.running == kNone) return;
  const uint32_t index = l.running;
  const SimThread& t = threads[index];
  const double tolerance = 1e-12 * std::max(1.0, std::fabs(now));
  if (t.mode == SimThread::computing && l.ran_from + t.remaining_ns / l.cores <= now + tolerance) {
    finish_computing(index);
    return;
  }
  if (l.turns.empty() || l.slice_end > now + tolerance) return;
  count_progress(l);
  l.running = kNone;
  l.turns.push_back(index);
  if (!l.unsettled) unsettled.push_back(lane);
  l.unsettled = true;
}

void Simulation::State::settle_turns() {
  for (uint32_t lane : unsettled) settle(lanes[lane]);
  unsettled.clear();
}

// Once everything at `now` has happened: who runs on a sliced lane. A thread that left at
// this very moment and came back (the end of a step, a lock free at once) never stopped
// running and keeps its turn; a thread woken now runs at once where the model says wake-ups
// preempt (the one it displaces goes next), else it waits at the back, as everyone else
// arriving does (in index order: the result depends on who arrived, not on the order
// events were handled in).
void Simulation::State::settle(Lane& l) {
  l.unsettled = false;
  std::sort(l.arriving.begin(), l.arriving.end());
  uint32_t resumed = kNone;
  settle_woken.clear();
  settle_moved.clear();
  for (uint32_t index : l.arriving) {
    if (index == l.vacated && l.vacated_at == now) {
      resumed = index;
    } else if (threads[index].left_lane_at < now) {
      settle_woken.push_back(index);
    } else {
      settle_moved.push_back(index);
    }
  }
  l.arriving.clear();
  l.vacated = kNone;
  auto begin_turn = [&](uint32_t index) {
    l.running = index;
    l.ran_from = now;
    l.slice_end = now + config.model.slice_ns;
  };
  if (l.running == kNone && resumed != kNone) {
    l.running = resumed;  // its turn goes on
    l.ran_from = now;
  }
  size_t next_woken = 0;
  if (config.model.wake_preempts && !settle_woken.empty()) {
    if (l.running != kNone) {
      count_progress(l);
      l.turns.push_front(l.running);
    }
    begin_turn(settle_woken[next_woken++]);
  }
  const bool was_waiting = !l.turns.empty();
  for (size_t i = next_woken; i < settle_woken.size(); ++i) l.turns.push_back(settle_woken[i]);
  for (uint32_t index : settle_moved) l.turns.push_back(index);
  if (l.running == kNone && !l.turns.empty()) {
    begin_turn(l.turns.front());
    l.turns.pop_front();
  } else if (l.running != kNone && !was_waiting && !l.turns.empty() && l.slice_end <= now) {
    // It ran alone past its turn: the newcomer waits for the tick that ends the turn under way.
    const double slice = config.model.slice_ns;
    l.slice_end += slice * (std::floor((now - l.slice_end) / slice) + 1);
  }
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
  if (shared_pools.empty()) return settle_turns();
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
  settle_turns();
}

// Where a thread that wakes up goes, as Linux wakes a thread: its last lane if idle, else
// the first idle one, else the first least loaded (its own on a tie).
uint32_t Simulation::State::wake_lane(const SimThread& t) {
  const std::vector<uint32_t>& pool = pools[t.pool].lanes;
  if (lanes[t.lane].was_idle || !config.model.wake_to_idle) return t.lane;
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
      const double at =
          l.idle_since == now && config.model.pull_when_idle ? now : l.idle_since + kBalanceNs;
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
      // Taking turns, the thread on the processor cannot be taken: one waiting can.
      if (t.counted && !t.placing && t.lane == busiest && lanes[busiest].running != i &&
          (moved == kNone || t.on_lane_since >= threads[moved].on_lane_since)) {
        moved = i;
      }
    }
    detach(threads[moved]);
    attach(threads[moved], moved, idle);
  }
}

}  // namespace quartz::analysis
