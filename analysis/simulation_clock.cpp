// Threads through their steps, the critical path's composition, and the clock that
// moves from one moment something changes to the next.
#include <algorithm>
#include <cmath>

#include "analysis/simulation_state.h"

namespace quartz::analysis {

namespace {

// Processor time a woken mutex waiter needs before it can try the mutex again.
constexpr double kLockRetryNs = 1000;

}  // namespace

void Simulation::State::charge_path(SimThread& t, uint32_t index, const Step& s, double cpu_ns,
                                    double delay_ns) {
  if (!config.critical_path) return;
  t.path = path_pieces.push_back(PathPiece{
      t.path, index, s.attribution, t.held.empty() ? kNoLock : t.held.back(), cpu_ns, delay_ns});
}

PathComposition Simulation::State::compose_path(PathRef path) const {
  PathComposition p;
  for (PathRef at = path; at != kEmptyPath; at = path_pieces.at(at).before) {
    const PathPiece& piece = path_pieces.at(at);
    if (p.thread_ns.size() <= piece.thread) p.thread_ns.resize(piece.thread + 1);
    p.thread_ns[piece.thread] += piece.cpu_ns + piece.delay_ns;
    p.cpu_ns += piece.cpu_ns;
    p.delay_ns += piece.delay_ns;
    if (piece.attribution < attributions.size()) {
      for (const auto& [context, weight] : attributions[piece.attribution])
        p.context_ns[context] += piece.cpu_ns * weight;
    }
    if (piece.lock != kNoLock)
      p.lock_ns[lock_addresses[piece.lock]] += piece.cpu_ns + piece.delay_ns;
  }
  return p;
}

void Simulation::State::start_work(SimThread& t, uint32_t index, double cpu_ns, double delay_ns) {
  if (cpu_ns <= 0) {
    start_delay(t, index, delay_ns);
    return;
  }
  t.mode = SimThread::computing;
  t.remaining_ns = cpu_ns;
  t.delay_after_ns = delay_ns;
  add_runnable(t, index);
}

void Simulation::State::start_delay(SimThread& t, uint32_t index, double delay_ns) {
  if (delay_ns <= 0) {
    t.mode = SimThread::idle;
    work.push_back(index);
    return;
  }
  t.mode = SimThread::delaying;
  delays.emplace(now + delay_ns, index);
}

// Takes the thread's next steps until it has to compute, wait or be delayed.
void Simulation::State::move_on(uint32_t index) {
  SimThread& t = threads[index];
  if (t.mode != SimThread::idle) return;
  StepLog& log = logs[index];
  for (;;) {
    if (t.lock_wait != 0) {  // woken by a release of the mutex it waits for: try again
      if (t.lock_retry_work) {
        // It must be running to take it (a futex wait's return): on a processor taken
        // in turns, only once its turn comes.
        t.lock_retry_work = false;
        start_work(t, index, kLockRetryNs, 0);
        return;
      }
      if (!take_mutex(t, index, t.lock_wait)) return;
      finish_sync(t);
      continue;
    }
    if (t.awaiting) {  // a need was met: are the others?
      if (!wait_for_needs(t, index)) return;
      if (t.mid_sync) finish_sync(t);
      continue;
    }
    if (t.extra_work_ns > 0) {
      const double extra = t.extra_work_ns;
      t.extra_work_ns = 0;
      t.current = Step{};
      charge_path(t, index, t.current, extra, 0);
      start_work(t, index, extra, 0);
      return;
    }
    if (t.cursor >= log.end()) {
      if (log.ended) {
        t.mode = SimThread::done;
        t.end_ns = now;
        return;
      }
      if (!t.started && index != 0) {
        // Not created yet in the replay: wait for that rather than for its steps.
        t.started = true;
        t.need_count = 1;
        t.need_index = 0;
        t.needs[0] = Need{Key{index, 0, KeyKind::create}, 1};
        if (!wait_for_needs(t, index)) return;
        continue;
      }
      starved = true;
      work.push_back(index);  // resumes when more is read
      return;
    }
    const Step& s = log.at(t.cursor);
    if (s.kind == Step::work) {
      double cpu = s.cpu_ns, delay = s.delay_ns;
      const double share = config.in_procedure.empty() ? 0 : procedure_share(s);
      if (share > 0) {
        if (config.migrate) {
          if (signal_follows(t, log)) {
            t.migrate_pending_ns += (cpu + delay) * share;
            cpu *= 1 - share;
            delay *= 1 - share;
          } else if (starved) {
            work.push_back(index);
            return;
          }
        } else {
          cpu *= 1 - config.speedup * share;
          delay *= 1 - config.speedup * share;
        }
      }
      ++t.cursor;
      ++result.steps;
      t.current = s;
      charge_path(t, index, s, cpu, delay);
      start_work(t, index, cpu, delay);
      return;
    }
    // A synchronization step: hand over what it produces, then wait for what it needs.
    t.current = s;
    t.need_count = t.need_index = 0;
    if (!begin_sync(t, index, s)) return;
    t.mid_sync = true;
    if (!wait_for_needs(t, index)) return;
    finish_sync(t);
  }
}

void Simulation::State::finish_sync(SimThread& t) {
  t.mid_sync = false;
  t.need_count = t.need_index = 0;
  ++t.cursor;
  ++result.steps;
}

void Simulation::State::finish_computing(uint32_t index) {
  SimThread& t = threads[index];
  remove_runnable(t);
  const double delay = t.delay_after_ns;
  t.delay_after_ns = 0;
  start_delay(t, index, delay);
}

// Releases the waiting thread that has waited longest in the recording: its partner
// will never come (a dropped event, a producer we do not trace).
bool Simulation::State::force_a_wait() {
  uint32_t chosen = kNone;
  for (uint32_t i = 0; i < threads.size(); ++i) {
    const SimThread& t = threads[i];
    if (t.mode != SimThread::waiting) continue;
    if (chosen == kNone || t.current.observed_ns < threads[chosen].current.observed_ns) chosen = i;
  }
  if (chosen == kNone) return false;
  SimThread& t = threads[chosen];
  ++result.forced_waits;
  if (t.lock_wait != 0) {  // its mutex is never released: it takes it
    Mutex& m = mutexes[t.lock_wait];
    std::erase(m.waiters, chosen);
    m.holder = kNone;
    t.lock_retry_work = false;
    if (t.counted) remove_runnable(t);
    t.mode = SimThread::idle;
    work.push_back(chosen);
    return true;
  }
  KeyState* k = keys.find(t.needs[t.need_index].key);
  if (k && k->waiting != 0) {
    std::erase(wait_lists[k->waiting - 1], chosen);
    if (wait_lists[k->waiting - 1].empty()) drop_wait_list(*k);
  }
  if (t.counted) remove_runnable(t);
  ++t.need_index;
  t.mode = SimThread::idle;
  work.push_back(chosen);
  return true;
}

bool Simulation::State::advance() {
  grow();
  starved = false;
  for (;;) {
    // Everything that happens at `now`.
    while (!work.empty() && !starved) {
      const uint32_t index = work.back();
      work.pop_back();
      move_on(index);
    }
    if (starved) return false;
    place();
    // The next moment something changes.
    double next = kInfinity;
    for (uint32_t lane = 0; lane < lanes.size(); ++lane) next = std::min(next, next_finish(lane));
    next = std::min(next, next_pull);
    if (!delays.empty()) next = std::min(next, delays.top().first);
    if (next == kInfinity) {
      if (force_a_wait()) continue;
      return finished();
    }
    now = std::max(now, next);
    for (uint32_t lane = 0; lane < lanes.size(); ++lane) {
      Lane& l = lanes[lane];
      if (l.sliced) {
        end_turn(lane);
        continue;
      }
      bring_up_to_date(l);
      while (!l.finishing.empty()) {
        const auto [tag, index] = l.finishing.top();
        const SimThread& t = threads[index];
        if (t.mode != SimThread::computing || t.placing || t.lane != lane || t.finish_tag != tag) {
          l.finishing.pop();
          continue;
        }
        // Done within rounding of the lane's virtual time.
        if (tag > l.vtime + 1e-12 * std::max(1.0, std::fabs(l.vtime))) break;
        l.finishing.pop();
        finish_computing(index);
      }
    }
    while (!delays.empty() && delays.top().first <= now) {
      const uint32_t index = delays.top().second;
      delays.pop();
      SimThread& t = threads[index];
      if (t.waking_on != kNone) {
        --lanes[t.waking_on].waking;
        t.waking_on = kNone;
      }
      t.mode = SimThread::idle;
      work.push_back(index);
    }
  }
}

bool Simulation::State::finished() {
  for (uint32_t i = 0; i < threads.size(); ++i) {
    if (threads[i].mode != SimThread::done) return false;
  }
  return true;
}

}  // namespace quartz::analysis
