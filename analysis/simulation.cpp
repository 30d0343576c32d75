#include "analysis/simulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "format/capture_format.h"

namespace quartz::analysis {
namespace {

using trace::Type;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr uint32_t kNone = 0xffffffffu;
// Signals kept for late wakes; older ones are forgotten.
constexpr uint32_t kSignalsKept = 64;
// Linux's balancing, as the replay of a pool of processors follows it: a processor going
// idle takes a waiting thread from a busy one at once (newly-idle balancing); one that was
// idle already when another got two threads waits for the periodic balancing, at most a
// scheduler tick (4 ms at the usual 250 Hz) after it went idle.
constexpr double kBalanceNs = 4e6;

// What one thread hands to another.
enum class KeyKind : uint8_t { create, exit, release, read_release, signal, arrive, post };

struct Key {
  uint64_t object = 0;
  uint32_t sequence = 0;
  KeyKind kind = KeyKind::create;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    uint64_t h = k.object * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t{k.sequence} << 8 | static_cast<uint64_t>(k.kind)) * 0xC2B2AE3D27D4EB4Full;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

struct KeyState {
  double time = 0;       // when the last producer produced it
  uint32_t count = 0;    // producers so far (arrivals, read releases)
  uint32_t consumers = 0;
  double migrated_ns = 0;  // moved work for the first consumer
  std::shared_ptr<PathComposition> path;
  std::vector<uint32_t> waiters;
};

struct Need {
  Key key;
  uint32_t count = 0;  // producers needed
};

struct SimThread {
  enum Mode : uint8_t { idle, computing, delaying, waiting, done };
  Mode mode = idle;
  bool started = false;
  bool counted = false;  // runnable (computing, or spinning while it waits)
  bool placing = false;  // runnable since the last placement: no processor chosen yet
  uint32_t pool = 0;     // its group in the configuration
  uint32_t lane = 0;     // the processor it runs on, or last ran on
  double on_lane_since = 0;  // when it was put there
  double left_lane_at = -1;  // when it last stopped being runnable
  double remaining_ns = 0;  // processor time a placing thread's computation needs
  uint64_t cursor = 0;   // next step to read
  double delay_after_ns = 0;
  double finish_tag = 0;
  // The step in progress: a work step's attribution, or a sync step's needs.
  Step current;
  Need needs[2] = {};
  uint32_t need_count = 0, need_index = 0;
  bool awaiting = false;     // waits for needs[need_index..need_count)
  bool mid_sync = false;     // ... of the sync step at `cursor`
  double wait_began_ns = 0;
  double end_ns = 0;
  // Procedure migration.
  double migrate_pending_ns = 0;   // time of the procedure to hand over at the next signal
  double extra_work_ns = 0;        // handed over to this thread: runs before its next step
  uint64_t scan = 0;               // how far the log was searched for the next signal
  uint64_t next_signal = 0;        // its position, or ~0 when none before the log's end
  bool next_signal_known = false;
  // Critical path.
  std::shared_ptr<PathComposition> path;
  std::vector<uint64_t> held;      // locks held, innermost last
};

// One processor of a pool (or, for a fractional number of processors, all of them).
struct Lane {
  double cores = 1;
  double vtime = 0;    // processor time each runnable thread has received
  double updated = 0;  // when vtime was last brought up to date
  uint32_t runnable = 0;
  double idle_since = 0;  // when runnable last fell to 0
  bool was_idle = false;  // before the wake-ups being placed
  // Finish tags of its computing threads (lazy: stale entries are skipped).
  std::priority_queue<std::pair<double, uint32_t>, std::vector<std::pair<double, uint32_t>>,
                      std::greater<>>
      finishing;
  double rate() const { return runnable ? std::min(1.0, cores / runnable) : 1.0; }
};

// A group of the configuration: K processors as K lanes, where each runnable thread
// stays on the lane it ran on, as Linux keeps a thread on its processor (see place()).
struct Pool {
  std::vector<uint32_t> lanes;
};

using TimeQueue = std::priority_queue<std::pair<double, uint32_t>,
                                      std::vector<std::pair<double, uint32_t>>, std::greater<>>;

bool is_signal(Type type) {
  return type == Type::cond_signal || type == Type::cond_broadcast || type == Type::sem_post;
}

}  // namespace

struct Simulation::State {
  SimulationConfig config;
  std::vector<StepLog>& logs;
  const std::vector<Attribution>& attributions;
  std::vector<double> share_of;  // procedure_share by attribution; < 0: not computed
  std::vector<SimThread> threads;
  std::vector<Lane> lanes;
  std::vector<Pool> pools;
  std::vector<uint32_t> shared_pools;  // pools of more than one lane
  std::vector<uint32_t> placing;  // threads to place on a lane once `now` is settled
  double next_pull = kInfinity;   // when an idle lane may next take a thread
  std::unordered_map<Key, KeyState, KeyHash> keys;
  TimeQueue delays;
  std::vector<uint32_t> work;  // threads to move on at `now`
  double now = 0;
  bool end_seen = false;
  double end_ns = 0;
  bool starved = false;
  std::shared_ptr<PathComposition> end_path;
  SimulationResult result;

  State(SimulationConfig c, std::vector<StepLog>& l, const std::vector<Attribution>& a)
      : config(std::move(c)), logs(l), attributions(a) {
    for (double cores : config.cores) add_pool(cores);
    grow();
  }

  void grow() {
    while (threads.size() < logs.size()) {
      const auto index = static_cast<uint32_t>(threads.size());
      SimThread t;
      if (index < config.group_of_thread.size()) {
        t.pool = config.group_of_thread[index];
      } else {
        t.pool = static_cast<uint32_t>(pools.size());
        add_pool(1);
      }
      t.lane = pools[t.pool].lanes.front();
      if (config.critical_path) t.path = std::make_shared<PathComposition>();
      threads.push_back(std::move(t));
      work.push_back(index);
    }
  }

  // ---- processors ----------------------------------------------------------------------

  void add_pool(double cores) {
    Pool& pool = pools.emplace_back();
    // A whole number of processors: one lane each. Otherwise one lane sharing them all.
    const bool whole = cores >= 2 && cores == std::floor(cores);
    if (whole) shared_pools.push_back(static_cast<uint32_t>(pools.size() - 1));
    for (double c = 0; c < (whole ? cores : 1); ++c) {
      pool.lanes.push_back(static_cast<uint32_t>(lanes.size()));
      lanes.emplace_back().cores = whole ? 1 : cores;
    }
  }
  void bring_up_to_date(Lane& l) {
    if (now > l.updated) {
      l.vtime += (now - l.updated) * l.rate();
      l.updated = now;
    }
  }
  // Starts the thread's computation (or spin) on `lane`.
  void attach(SimThread& t, uint32_t index, uint32_t lane) {
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
  void detach(SimThread& t) {
    Lane& l = lanes[t.lane];
    bring_up_to_date(l);
    if (--l.runnable == 0) l.idle_since = now;
    t.left_lane_at = now;
    if (t.mode == SimThread::computing) t.remaining_ns = std::max(0.0, t.finish_tag - l.vtime);
  }
  void add_runnable(SimThread& t, uint32_t index) {
    t.counted = true;
    if (pools[t.pool].lanes.size() == 1) {
      attach(t, index, t.lane);
    } else {
      t.placing = true;
      placing.push_back(index);
    }
  }
  void remove_runnable(SimThread& t) {
    if (!t.placing) detach(t);
    t.placing = false;
    t.counted = false;
  }
  double next_finish(uint32_t lane) {
    Lane& l = lanes[lane];
    while (!l.finishing.empty()) {
      const auto [tag, index] = l.finishing.top();
      const SimThread& t = threads[index];
      if (t.mode == SimThread::computing && !t.placing && t.lane == lane && t.finish_tag == tag) break;
      l.finishing.pop();
    }
    if (l.finishing.empty()) return kInfinity;
    return l.updated + std::max(0.0, l.finishing.top().first - l.vtime) / l.rate();
  }

  // Once everything at `now` has happened, the threads of pools that became runnable are
  // placed (in index order: the result depends on who is runnable, not on the order events
  // were handled in), then the pools are balanced.
  void place() {
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
  uint32_t wake_lane(const SimThread& t) {
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
  void balance(const Pool& pool) {
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

  // ---- critical path --------------------------------------------------------------------

  PathComposition& own_path(SimThread& t) {
    if (t.path.use_count() > 1) t.path = std::make_shared<PathComposition>(*t.path);
    return *t.path;
  }
  void charge_path(SimThread& t, uint32_t index, const Step& s, double cpu_ns, double delay_ns) {
    if (!config.critical_path) return;
    PathComposition& p = own_path(t);
    if (p.thread_ns.size() <= index) p.thread_ns.resize(index + 1);
    p.thread_ns[index] += cpu_ns + delay_ns;
    p.cpu_ns += cpu_ns;
    p.delay_ns += delay_ns;
    if (s.attribution < attributions.size()) {
      for (const auto& [context, weight] : attributions[s.attribution]) p.context_ns[context] += cpu_ns * weight;
    }
    if (!t.held.empty()) p.lock_ns[t.held.back()] += cpu_ns + delay_ns;
  }

  // ---- procedure changes ----------------------------------------------------------------

  // The part of a work step's time spent in the procedure (cached per attribution).
  double procedure_share(const Step& s) {
    if (s.attribution >= attributions.size()) return 0;
    if (share_of.size() <= s.attribution) share_of.resize(attributions.size(), -1);
    double& share = share_of[s.attribution];
    if (share < 0) {
      share = 0;
      for (const auto& [c, weight] : attributions[s.attribution]) {
        if (c < config.in_procedure.size() && config.in_procedure[c]) share += weight;
      }
    }
    return share;
  }

  // Whether a signal or post follows in the thread's log (migration moves the procedure's
  // time to whoever it wakes); false when the log ended without one. Sets `starved` when
  // the answer is not read yet.
  bool signal_follows(SimThread& t, const StepLog& log) {
    if (!t.next_signal_known || t.next_signal < t.cursor) {
      if (t.scan < t.cursor) t.scan = t.cursor;
      t.next_signal_known = false;
      while (t.scan < log.end()) {
        const Step& s = log.at(t.scan);
        if (s.kind == Step::sync && is_signal(s.type)) {
          t.next_signal = t.scan;
          t.next_signal_known = true;
          break;
        }
        ++t.scan;
      }
      if (!t.next_signal_known) {
        if (!log.ended) {
          starved = true;
          return false;
        }
        t.next_signal = ~uint64_t{0};
        t.next_signal_known = true;
      }
    }
    return t.next_signal != ~uint64_t{0};
  }

  // ---- keys -----------------------------------------------------------------------------

  static bool consumed_once(KeyKind kind) {
    return kind == KeyKind::release || kind == KeyKind::post || kind == KeyKind::create ||
           kind == KeyKind::read_release;
  }

  // Forgets a key nobody will need again: one consumed by its only consumer, a barrier
  // generation all its threads left.
  void collect(std::unordered_map<Key, KeyState, KeyHash>::iterator it, uint32_t needed) {
    const KeyState& k = it->second;
    if (!k.waiters.empty()) return;
    if ((consumed_once(it->first.kind) && k.consumers > 0) ||
        (it->first.kind == KeyKind::arrive && k.consumers >= needed)) {
      keys.erase(it);
    }
  }

  // Takes what key `k` carries to thread `t`, which needed it since `since`: work moved to
  // it, and (when the producer came later, so the path runs through it) the producer's path.
  void consume(SimThread& t, KeyState& k, double since) {
    ++k.consumers;
    if (k.migrated_ns > 0) {
      t.extra_work_ns += k.migrated_ns;
      k.migrated_ns = 0;
    }
    if (config.critical_path && k.path && k.time > since) t.path = k.path;
  }

  void produce(SimThread& t, const Key& key, double migrated_ns) {
    auto it = keys.try_emplace(key).first;
    KeyState& k = it->second;
    k.time = now;
    ++k.count;
    k.migrated_ns += migrated_ns;
    if (config.critical_path) k.path = t.path;
    if (key.kind == KeyKind::signal && key.sequence > kSignalsKept) {
      const auto old = keys.find(Key{key.object, key.sequence - kSignalsKept, KeyKind::signal});
      if (old != keys.end() && old->second.waiters.empty()) {
        if (old->second.consumers == 0) result.migrated_unreceived_ns += old->second.migrated_ns;
        keys.erase(old);
      }
    }
    if (k.waiters.empty()) return;
    std::vector<uint32_t> waiters;
    waiters.swap(k.waiters);
    uint32_t needed = 0;
    for (uint32_t index : waiters) {
      SimThread& w = threads[index];
      const uint32_t count = w.needs[w.need_index].count;
      if (k.count < count) {
        k.waiters.push_back(index);
        continue;
      }
      needed = std::max(needed, count);
      consume(w, k, w.wait_began_ns);
      ++w.need_index;
      if (w.counted) remove_runnable(w);  // it was spinning
      w.mode = SimThread::idle;
      work.push_back(index);
    }
    collect(it, needed);
  }

  // Waits for the thread's remaining needs; true when all are met already.
  bool wait_for_needs(SimThread& t, uint32_t index) {
    while (t.need_index < t.need_count) {
      const Need& need = t.needs[t.need_index];
      auto it = keys.find(need.key);
      if (it == keys.end() || it->second.count < need.count) {
        if (it == keys.end()) it = keys.try_emplace(need.key).first;
        it->second.waiters.push_back(index);
        t.mode = SimThread::waiting;
        t.awaiting = true;
        t.wait_began_ns = now;
        if (t.current.spinning && !t.counted) add_runnable(t, index);  // spinning burns its share
        return false;
      }
      consume(t, it->second, now);
      collect(it, need.count);
      ++t.need_index;
    }
    t.awaiting = false;
    return true;
  }

  // ---- steps ----------------------------------------------------------------------------

  void start_work(SimThread& t, uint32_t index, double cpu_ns, double delay_ns) {
    if (cpu_ns <= 0) {
      start_delay(t, index, delay_ns);
      return;
    }
    t.mode = SimThread::computing;
    t.remaining_ns = cpu_ns;
    t.delay_after_ns = delay_ns;
    add_runnable(t, index);
  }

  void start_delay(SimThread& t, uint32_t index, double delay_ns) {
    if (delay_ns <= 0) {
      t.mode = SimThread::idle;
      work.push_back(index);
      return;
    }
    t.mode = SimThread::delaying;
    delays.emplace(now + delay_ns, index);
  }

  // Takes the thread's next steps until it has to compute, wait or be delayed.
  void move_on(uint32_t index) {
    SimThread& t = threads[index];
    if (t.mode != SimThread::idle) return;
    StepLog& log = logs[index];
    for (;;) {
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

  void finish_sync(SimThread& t) {
    t.mid_sync = false;
    t.need_count = t.need_index = 0;
    ++t.cursor;
    ++result.steps;
  }

  // Produces what a sync step hands over and lists what it needs. False when the thread
  // stops here (it started a delay, or ended).
  bool begin_sync(SimThread& t, uint32_t index, const Step& s) {
    auto need = [&](KeyKind kind, uint64_t object, uint32_t sequence, uint32_t count) {
      t.needs[t.need_count++] = Need{Key{object, sequence, kind}, count};
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
        if (s.object_kind == capture::kRwlockRead) {
          if (s.depends) need(KeyKind::release, s.object, s.sequence, 1);
        } else {
          if (s.depends) need(KeyKind::release, s.object, s.sequence - 1, 1);
          if (s.object_kind == capture::kRwlockWrite && s.aux > 0 && s.sequence > 0) {
            need(KeyKind::read_release, s.object, s.sequence - 1, s.aux);
          }
        }
        if (config.critical_path) t.held.push_back(s.object);
        break;
      case Type::lock_release:
        produce(t,
                Key{s.object, s.sequence,
                    s.object_kind == capture::kRwlockRead ? KeyKind::read_release : KeyKind::release},
                0);
        if (config.critical_path) {
          auto it = std::find(t.held.rbegin(), t.held.rend(), s.object);
          if (it != t.held.rend()) t.held.erase(std::next(it).base());
        }
        break;
      case Type::cond_wake:
        if (s.depends) need(KeyKind::signal, s.object, s.sequence, 1);
        break;
      case Type::cond_signal:
      case Type::cond_broadcast:
      case Type::sem_post: {
        const double moved = t.migrate_pending_ns;
        t.migrate_pending_ns = 0;
        t.next_signal_known = false;
        produce(t, Key{s.object, s.sequence, s.type == Type::sem_post ? KeyKind::post : KeyKind::signal},
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

  // ---- the clock ------------------------------------------------------------------------

  void finish_computing(uint32_t index) {
    SimThread& t = threads[index];
    remove_runnable(t);
    const double delay = t.delay_after_ns;
    t.delay_after_ns = 0;
    start_delay(t, index, delay);
  }

  // Releases the waiting thread that has waited longest in the recording: its partner
  // will never come (a dropped event, a producer we do not trace).
  bool force_a_wait() {
    uint32_t chosen = kNone;
    for (uint32_t i = 0; i < threads.size(); ++i) {
      const SimThread& t = threads[i];
      if (t.mode != SimThread::waiting) continue;
      if (chosen == kNone || t.current.observed_ns < threads[chosen].current.observed_ns) chosen = i;
    }
    if (chosen == kNone) return false;
    SimThread& t = threads[chosen];
    auto it = keys.find(t.needs[t.need_index].key);
    if (it != keys.end()) {
      auto& waiters = it->second.waiters;
      waiters.erase(std::remove(waiters.begin(), waiters.end(), chosen), waiters.end());
    }
    ++result.forced_waits;
    if (t.counted) remove_runnable(t);
    ++t.need_index;
    t.mode = SimThread::idle;
    work.push_back(chosen);
    return true;
  }

  bool advance() {
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
        threads[index].mode = SimThread::idle;
        work.push_back(index);
      }
    }
  }

  bool finished() {
    for (uint32_t i = 0; i < threads.size(); ++i) {
      if (threads[i].mode != SimThread::done) return false;
    }
    return true;
  }
};

SimulationConfig threads_apart(uint32_t threads) {
  SimulationConfig c;
  for (uint32_t t = 0; t < threads; ++t) {
    c.group_of_thread.push_back(t);
    c.cores.push_back(1);
  }
  return c;
}

SimulationConfig threads_sharing(uint32_t threads, double cores) {
  SimulationConfig c;
  c.group_of_thread.assign(threads, 0);
  c.cores = {cores};
  return c;
}

SimulationConfig threads_grouped(const std::vector<uint32_t>& group_of) {
  SimulationConfig c;
  c.group_of_thread = group_of;
  c.cores.assign(group_of.empty() ? 0 : *std::max_element(group_of.begin(), group_of.end()) + 1, 1);
  return c;
}

Simulation::Simulation(SimulationConfig config, std::vector<StepLog>& logs,
                       const std::vector<Attribution>& attributions)
    : state_(std::make_unique<State>(std::move(config), logs, attributions)) {}

Simulation::~Simulation() = default;

bool Simulation::advance() {
  uint64_t window = 0;
  for (size_t i = 0; i < state_->logs.size() && i < state_->threads.size(); ++i) {
    window += state_->logs[i].end() - std::min(state_->logs[i].end(), state_->threads[i].cursor);
  }
  state_->result.peak_window = std::max(state_->result.peak_window, window);
  return state_->advance();
}

uint64_t Simulation::position(uint32_t index) const {
  return index < state_->threads.size() ? state_->threads[index].cursor : 0;
}

SimulationResult Simulation::result() const {
  SimulationResult r = state_->result;
  double last = 0;
  r.thread_end_ns.clear();
  for (const SimThread& t : state_->threads) {
    r.thread_end_ns.push_back(t.end_ns);
    last = std::max(last, t.end_ns);
  }
  r.elapsed_ns = state_->end_seen ? state_->end_ns : last;
  if (state_->config.critical_path) {
    // The path ends where the program ended: on the thread that ended it, or the last.
    r.path = state_->end_path;
    if (!r.path) {
      const SimThread* ending = nullptr;
      for (const SimThread& t : state_->threads) {
        if (!ending || t.end_ns > ending->end_ns) ending = &t;
      }
      if (ending) r.path = ending->path;
    }
  }
  for (const auto& [key, k] : state_->keys) {
    if (k.consumers == 0) r.migrated_unreceived_ns += k.migrated_ns;
  }
  return r;
}

}  // namespace quartz::analysis
