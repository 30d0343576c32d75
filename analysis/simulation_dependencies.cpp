// Dependencies: what a synchronization step hands over (a key) and what it waits for.
#include <algorithm>

#include "analysis/simulation_state.h"
#include "format/capture_format.h"

namespace quartz::analysis {

namespace {

// Signals kept as keys for late wakes (the work a moved procedure hands over); older ones
// are forgotten, and signals_made still knows they came.
constexpr uint32_t kSignalsKept = 64;
// Critical sections signalled from, kept as keys per condition (Simulation::State::feed).
constexpr size_t kFedKept = 64;
// Signals produced after a gap, beyond which the gap's are taken as lost (a trace with
// dropped events): a waker needing one is not held back for good.
constexpr size_t kSignalsAheadMax = 4096;

}  // namespace

bool Simulation::State::consumed_once(KeyKind kind) {
  return kind == KeyKind::release || kind == KeyKind::post || kind == KeyKind::create ||
         kind == KeyKind::read_release;
}

// The list of threads waiting for `k`, made if it has none.
std::vector<uint32_t>& Simulation::State::waiters_of(KeyState& k) {
  if (k.waiting == 0) {
    if (free_wait_lists.empty()) {
      wait_lists.emplace_back();
      k.waiting = static_cast<uint32_t>(wait_lists.size());
    } else {
      k.waiting = free_wait_lists.back() + 1;
      free_wait_lists.pop_back();
    }
  }
  return wait_lists[k.waiting - 1];
}

// `k`'s list, empty now, is free for another key.
void Simulation::State::drop_wait_list(KeyState& k) {
  free_wait_lists.push_back(k.waiting - 1);
  k.waiting = 0;
}

Simulation::State::KeyState* Simulation::State::KeyStore::find(const Key& key) {
  if (key.lock != kNoLock) {
    if (key.lock >= locks_.size()) return nullptr;  // none of the lock's keys yet
    LockKey& l = locks_[key.lock];
    if (holds(l, key)) return &l.state;
    if (l.in_table == 0) return nullptr;
  }
  const auto it = table_.find(key);
  return it == table_.end() ? nullptr : &it.value();
}

Simulation::State::KeyState& Simulation::State::KeyStore::emplace(const Key& key) {
  if (key.lock == kNoLock) return table_.try_emplace(key).first.value();
  if (key.lock >= locks_.size()) locks_.resize(key.lock + 1);
  LockKey& l = locks_[key.lock];
  if (holds(l, key)) return l.state;
  if (l.in_table != 0) {
    const auto it = table_.find(key);
    if (it != table_.end()) return it.value();
  }
  if (!l.used) {
    l = LockKey{KeyState{}, key.sequence, l.in_table, key.kind, true};
    return l.state;
  }
  ++l.in_table;
  return table_.try_emplace(key).first.value();
}

void Simulation::State::KeyStore::erase(const Key& key) {
  if (key.lock != kNoLock && key.lock < locks_.size()) {
    LockKey& l = locks_[key.lock];
    if (holds(l, key)) {
      l.used = false;
    } else if (table_.erase(key) != 0) {
      --l.in_table;
    }
    return;
  }
  table_.erase(key);
}

// Forgets a key nobody will need again: one consumed by its only consumer, a barrier
// generation all its threads left.
void Simulation::State::collect(const Key& key, const KeyState& k, uint32_t needed) {
  if (k.waiting != 0) return;
  if ((consumed_once(key.kind) && k.consumers > 0) ||
      (key.kind == KeyKind::arrive && k.consumers >= needed)) {
    keys.erase(key);
  }
}

// Takes what key `k` carries to thread `t`, which needed it since `since`: work moved to
// it, and (when the producer came later, so the path runs through it) the producer's path.
void Simulation::State::consume(SimThread& t, KeyState& k, double since) {
  ++k.consumers;
  if (k.migrated_ns > 0) {
    t.extra_work_ns += k.migrated_ns;
    k.migrated_ns = 0;
  }
  if (config.critical_path && k.path != kUnproduced && k.time > since) t.path = k.path;
}

// Forgets an earlier key of the same object that nobody waits for.
void Simulation::State::forget(const Key& key) {
  const KeyState* old = keys.find(key);
  if (!old || old->waiting != 0) return;
  if (old->consumers == 0) result.migrated_unreceived_ns += old->migrated_ns;
  keys.erase(key);
}

void Simulation::State::note_signal(const Key& key) {
  SignalsMade& made = signals_made[key.object];
  if (key.sequence <= made.through) return;
  made.ahead.push_back(key.sequence);
  if (made.ahead.size() > kSignalsAheadMax) {
    made.through = *std::min_element(made.ahead.begin(), made.ahead.end()) - 1;
  }
  // Every signal that now follows on from `through` joins it.
  for (auto it = std::find(made.ahead.begin(), made.ahead.end(), made.through + 1);
       it != made.ahead.end();
       it = std::find(made.ahead.begin(), made.ahead.end(), made.through + 1)) {
    *it = made.ahead.back();
    made.ahead.pop_back();
    ++made.through;
  }
}

bool Simulation::State::signal_made(const Key& key) const {
  const auto it = signals_made.find(key.object);
  if (it == signals_made.end()) return false;
  const SignalsMade& made = it->second;
  return key.sequence <= made.through ||
         std::find(made.ahead.begin(), made.ahead.end(), key.sequence) != made.ahead.end();
}

void Simulation::State::produce(SimThread& t, const Key& key, double migrated_ns) {
  if (key.kind == KeyKind::signal) {
    note_signal(key);
    if (key.sequence > kSignalsKept) {
      forget(Key{key.object, key.sequence - kSignalsKept, KeyKind::signal});
    }
  }
  KeyState& k = keys.emplace(key);
  k.time = now;
  ++k.count;
  k.migrated_ns += migrated_ns;
  if (config.critical_path) k.path = t.path;
  if (k.waiting == 0) return;
  // Waking touches neither the keys nor the lists: the list is kept in place, in order.
  std::vector<uint32_t>& waiters = wait_lists[k.waiting - 1];
  size_t still = 0;
  uint32_t needed = 0;
  for (uint32_t index : waiters) {
    SimThread& w = threads[index];
    const uint32_t count = w.needs[w.need_index].count;
    if (k.count < count) {
      waiters[still++] = index;
      continue;
    }
    needed = std::max(needed, count);
    consume(w, k, w.wait_began_ns);
    ++w.need_index;
    wake(w, index);
  }
  waiters.resize(still);
  if (still == 0) drop_wait_list(k);
  collect(key, k, needed);
}

// The processor of `t`'s pool a wake-up of `t` would have to wake: its own if idle, else the
// first idle one; kNone when none is. Idle means since before this moment (one that went
// idle just now is still running: its thread blocked after waking the other) and not
// already being woken for another thread (Linux then wakes the next onto a busy one).
uint32_t Simulation::State::idle_lane_for(const SimThread& t) const {
  auto idle = [&](uint32_t lane) {
    const Lane& l = lanes[lane];
    return l.runnable == 0 && l.idle_since < now && l.waking == 0;
  };
  if (idle(t.lane)) return t.lane;
  for (uint32_t lane : pools[t.pool].lanes) {
    if (idle(lane)) return lane;
  }
  return kNone;
}

// A waiting thread whose needs are met goes on: at once if it was spinning or a processor
// is running where it wakes, else once an idle processor has woken up for it.
void Simulation::State::wake(SimThread& w, uint32_t index) {
  if (w.counted) {
    remove_runnable(w);  // it was spinning
  } else if (config.wake_latency_ns > 0) {
    const uint32_t lane = idle_lane_for(w);
    if (lane != kNone) {
      ++lanes[lane].waking;
      w.waking_on = lane;
      w.lane = lane;
      w.mode = SimThread::delaying;
      delays.emplace(now + config.wake_latency_ns, index);
      return;
    }
  }
  w.mode = SimThread::idle;
  work.push_back(index);
}

// Waits for the thread's remaining needs; true when all are met already.
bool Simulation::State::wait_for_needs(SimThread& t, uint32_t index) {
  while (t.need_index < t.need_count) {
    const Need& need = t.needs[t.need_index];
    KeyState* k = keys.find(need.key);
    if (!k && need.key.kind == KeyKind::signal && signal_made(need.key)) {
      ++t.need_index;  // produced and forgotten long ago
      continue;
    }
    if (!k && need.key.kind == KeyKind::fed) {
      const auto fed = fed_made.find(need.key.object);
      if (fed != fed_made.end() && need.key.sequence <= fed->second.forgotten_through) {
        ++t.need_index;  // released and forgotten long ago
        continue;
      }
    }
    if (!k || k->count < need.count) {
      if (!k) k = &keys.emplace(need.key);
      waiters_of(*k).push_back(index);
      t.mode = SimThread::waiting;
      t.awaiting = true;
      t.wait_began_ns = now;
      if (t.current.spinning && !t.counted) add_runnable(t, index);  // spinning burns its share
      return false;
    }
    consume(t, *k, now);
    collect(need.key, *k, need.count);
    ++t.need_index;
  }
  t.awaiting = false;
  return true;
}

// A critical path's thread takes the step's lock: its pieces name it while it holds it.
void Simulation::State::hold(SimThread& t, const Step& s) {
  if (s.lock == kNoLock) return;  // the assembler numbers every lock step's lock
  if (s.lock >= lock_addresses.size()) lock_addresses.resize(s.lock + 1);
  lock_addresses[s.lock] = s.object;
  t.held.push_back(s.lock);
}

// Whether the step takes or gives back a mutex granted to whoever asks first while it is
// free: in the models that do not keep the recorded order, exclusive locks (a rwlock's
// order stays the recorded one).
bool Simulation::State::granted_as_asked(const Step& s) const {
  return !config.model.recorded_lock_order &&
         (s.object_kind == capture::kMutex || s.object_kind == capture::kSpinlock);
}

// Takes the mutex if it is free; else the thread waits for it (spinning, if its step
// spins) until a release wakes it to try again. True when taken.
bool Simulation::State::take_mutex(SimThread& t, uint32_t index, uint64_t object) {
  Mutex& m = mutexes[object];
  if (m.holder == kNone || m.holder == index) {
    m.holder = index;
    t.lock_wait = 0;
    return true;
  }
  m.waiters.push_back(index);
  t.lock_wait = object;
  t.mode = SimThread::waiting;
  t.wait_began_ns = now;
  if (t.current.spinning && !t.counted) add_runnable(t, index);
  return false;
}

// Frees the mutex and wakes its first waiter, which must run before it can take it: a
// thread that asks meanwhile (the releaser looping back, a thread already running) gets
// it first, as with a futex-based mutex.
void Simulation::State::release_mutex(SimThread& t, uint64_t object) {
  auto it = mutexes.find(object);
  if (it == mutexes.end()) return;
  Mutex& m = it.value();
  m.holder = kNone;
  if (m.waiters.empty()) {
    mutexes.erase(it);
    return;
  }
  const uint32_t index = m.waiters.front();
  m.waiters.erase(m.waiters.begin());
  SimThread& w = threads[index];
  if (config.critical_path) w.path = t.path;
  w.lock_retry_work = true;
  wake(w, index);
}

// Condition `object` was signalled from the critical section its mutex numbered `sequence`:
// the waiters' critical sections that followed it may go on (trace_format.h lock_fed).
// Several signallers' (producers') come out of their numbers' order: each key is kept a
// while for the needs still to come.
void Simulation::State::feed(SimThread& t, uint64_t object, uint32_t sequence) {
  produce(t, Key{object, sequence, KeyKind::fed}, 0);
  FedMade& made = fed_made[object];
  made.kept.push_back(sequence);
  if (made.kept.size() > kFedKept) {
    const uint32_t old = made.kept.front();
    made.kept.pop_front();
    forget(Key{object, old, KeyKind::fed});
    made.forgotten_through = std::max(made.forgotten_through, old);
  }
}

// Produces what a sync step hands over and lists what it needs. False when the thread
// stops here (it started a delay, or ended).
bool Simulation::State::begin_sync(SimThread& t, uint32_t index, const Step& s) {
  auto need = [&](KeyKind kind, uint64_t object, uint32_t sequence, uint32_t count,
                  uint32_t lock = kNoLock) {
    t.needs[t.need_count++] = Need{Key{object, sequence, kind, lock}, count};
  };
  switch (s.type) {
    case Type::thread_start:
      if (!t.started) {
        t.started = true;
        if (s.object != trace::kNoThread) {
          need(KeyKind::create, index, 0, 1);
        } else if (s.observed_ns > now) {
          // A thread nobody we saw created (the main thread): it starts when it did.
          ++t.cursor;
          start_delay(t, index, s.observed_ns - now);
          t.need_count = 0;
          return false;
        }
      }
      break;
    case Type::create:
      produce(t, Key{s.object, 0, KeyKind::create}, 0);
      break;
    case Type::thread_exit:
      produce(t, Key{index, 0, KeyKind::exit}, 0);
      break;
    case Type::join_begin:  // the thread it joins is known before it blocks: wait here
    case Type::join_end:
      if (s.depends) need(KeyKind::exit, s.object, 0, 1);
      break;
    case Type::lock_acquire:
      if (granted_as_asked(s)) {
        if (config.critical_path) hold(t, s);
        if (!take_mutex(t, index, s.object)) return false;
        break;
      }
      if (s.object_kind == capture::kRwlockRead) {
        if (s.depends) need(KeyKind::release, s.object, s.sequence, 1, s.lock);
      } else {
        if (s.depends) need(KeyKind::release, s.object, s.sequence - 1, 1, s.lock);
        if (s.object_kind == capture::kRwlockWrite && s.aux > 0 && s.sequence > 0) {
          need(KeyKind::read_release, s.object, s.sequence - 1, s.aux, s.lock);
        }
      }
      if (config.critical_path) hold(t, s);
      break;
    case Type::lock_release:
      if (granted_as_asked(s)) {
        release_mutex(t, s.object);
      } else {
        produce(
            t,
            Key{s.object, s.sequence,
                s.object_kind == capture::kRwlockRead ? KeyKind::read_release : KeyKind::release,
                s.lock},
            0);
        // The previous release of a mutex had one possible consumer, the acquisition this
        // thread made before this release: it is met or was never needed (an acquisition
        // that did not depend on it), and would stay in the table for good.
        if ((s.object_kind == capture::kMutex || s.object_kind == capture::kSpinlock) &&
            s.sequence > 1) {
          forget(Key{s.object, s.sequence - 1, KeyKind::release, s.lock});
        }
      }
      if (config.critical_path) {
        auto it = std::find(t.held.rbegin(), t.held.rend(), s.lock);
        if (it != t.held.rend()) t.held.erase(std::next(it).base());
      }
      break;
    case Type::cond_wake:
      if (s.depends) need(KeyKind::signal, s.object, s.sequence, 1);
      break;
    case Type::lock_feeds:  // a signaller's critical section (trace_format.h)
      feed(t, s.object, s.sequence);
      break;
    case Type::lock_fed:  // the critical section followed a signal's (trace_format.h)
      if (s.depends) need(KeyKind::fed, s.object, s.sequence, 1);
      break;
    case Type::cond_signal:
    case Type::cond_broadcast:
    case Type::sem_post: {
      if (s.type != Type::sem_post && s.aux != 0) feed(t, s.object, s.aux);
      const double moved = t.migrate_pending_ns;
      t.migrate_pending_ns = 0;
      t.next_signal_known = false;
      produce(t,
              Key{s.object, s.sequence, s.type == Type::sem_post ? KeyKind::post : KeyKind::signal},
              moved);
      break;
    }
    case Type::barrier_arrive:
      // Its generation is known on arrival: wait here for the others, not at departure.
      if (s.aux > 0) {
        produce(t, Key{s.object, s.sequence / s.aux, KeyKind::arrive}, 0);
        need(KeyKind::arrive, s.object, s.sequence / s.aux, s.aux);
      }
      break;
    case Type::sem_acquire:
      if (s.depends) need(KeyKind::post, s.object, s.sequence - s.aux, 1);
      break;
    case Type::process_end:
      end_seen = true;
      end_ns = now;
      if (config.critical_path) end_path = t.path;
      break;
    default:
      break;
  }
  return true;
}

}  // namespace quartz::analysis
