// The replay's state and the operations on it, shared by the files that implement
// Simulation (simulation.h), one part each:
//   simulation.cpp               the class callers use: configurations, start, result
//   simulation_processors.cpp    processors: sharing, placement and balancing of a pool
//   simulation_dependencies.cpp  what synchronization steps hand over and wait for
//   simulation_changes.cpp       procedure changes (faster, free, or migrated)
//   simulation_clock.cpp         threads through their steps, the critical path, the clock
// Callers include simulation.h, not this.
#pragma once

#include <tsl/robin_map.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

#include "analysis/block_queue.h"
#include "analysis/simulation.h"
#include "analysis/trace_steps.h"

namespace quartz::analysis {

// A piece of a critical path: what one thread did in one step, after the piece `before`
// (PathRef: a piece's index + 1; kEmptyPath: nothing before).
using PathRef = uint32_t;
inline constexpr PathRef kEmptyPath = 0;
struct PathPiece {
  PathRef before = kEmptyPath;
  uint32_t thread = 0;
  uint32_t attribution = 0;  // into the attributions; past their end: none
  uint32_t lock = kNoLock;   // held, innermost (Step::lock)
  double cpu_ns = 0, delay_ns = 0;
};

// The pieces of every path, by PathRef (a position + 1): a replay of millions of steps makes
// a piece per step, and a vector doubling in size copied them and faulted in twice their
// size (a tenth of a prediction's processor time, zeroing fresh pages).
class PathPieces {
 public:
  // The new piece's PathRef.
  PathRef push_back(const PathPiece& p) {
    pieces_.push(p, blocks_);
    return static_cast<PathRef>(pieces_.end());
  }
  const PathPiece& at(PathRef ref) const { return pieces_.at(ref - 1); }

 private:
  BlockQueue<PathPiece, 16>::Pool blocks_;
  BlockQueue<PathPiece, 16> pieces_;
};

struct Simulation::State {
  using Type = trace::Type;
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();
  static constexpr uint32_t kNone = 0xffffffffu;

  // What one thread hands to another.
  // fed: a condition signalled from a critical section (trace_format.h lock_fed).
  enum class KeyKind : uint8_t { create, exit, release, read_release, signal, arrive, post, fed };

  struct Key {
    uint64_t object = 0;
    uint32_t sequence = 0;
    KeyKind kind = KeyKind::create;
    uint32_t lock = kNoLock;  // a lock's release: the lock's number (Step::lock)
    bool operator==(const Key&) const = default;
  };

  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = k.object * 0x9E3779B97F4A7C15ull;
      h ^= (uint64_t{k.sequence} << 8 | static_cast<uint64_t>(k.kind)) * 0xC2B2AE3D27D4EB4Full;
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };

  // Small and plain, as the table moves its entries on every insertion and erasure: the
  // threads waiting for a key are in a list of their own (a key has none most of the time).
  static constexpr PathRef kUnproduced = 0xffffffffu;
  struct KeyState {
    double time = 0;         // when the last producer produced it
    double migrated_ns = 0;  // moved work for the first consumer
    uint32_t count = 0;      // producers so far (arrivals, read releases)
    uint32_t consumers = 0;
    PathRef path = kUnproduced;  // its last producer's, once produced
    uint32_t waiting = 0;        // its list in wait_lists + 1; 0: nobody waits
  };

  struct Need {
    Key key;
    uint32_t count = 0;  // producers needed
  };

  struct SimThread {
    enum Mode : uint8_t { idle, computing, delaying, waiting, done };
    Mode mode = idle;
    bool started = false;
    bool counted = false;        // runnable (computing, or spinning while it waits)
    bool placing = false;        // runnable since the last placement: no processor chosen yet
    uint32_t pool = 0;           // its group in the configuration
    uint32_t lane = 0;           // the processor it runs on, or last ran on
    double on_lane_since = 0;    // when it was put there
    uint32_t waking_on = kNone;  // the idle lane it is waking up on (wake_latency_ns)
    double left_lane_at = -1;    // when it last stopped being runnable
    double remaining_ns = 0;     // processor time a placing thread's computation needs
    uint64_t cursor = 0;         // next step to read
    double delay_after_ns = 0;
    double finish_tag = 0;
    // The step in progress: a work step's attribution, or a sync step's needs.
    Step current;
    Need needs[2] = {};
    uint32_t need_count = 0, need_index = 0;
    bool awaiting = false;  // waits for needs[need_index..need_count)
    bool mid_sync = false;  // ... of the sync step at `cursor`
    double wait_began_ns = 0;
    double end_ns = 0;
    // Procedure migration.
    double migrate_pending_ns = 0;  // time of the procedure to hand over at the next signal
    double extra_work_ns = 0;       // handed over to this thread: runs before its next step
    uint64_t scan = 0;              // how far the log was searched for the next signal
    uint64_t next_signal = 0;       // its position, or ~0 when none before the log's end
    bool next_signal_known = false;
    // Mutexes granted to whoever asks while they are free (SchedulerModel::recorded_lock_order
    // false): the one it waits for or, woken, retries (0: none), and whether it must run
    // first to retry.
    uint64_t lock_wait = 0;
    bool lock_retry_work = false;
    // Critical path.
    PathRef path = kEmptyPath;
    std::vector<uint32_t> held;  // locks held (Step::lock), innermost last
  };

  // One processor of a pool (or, for a fractional number of processors, all of them).
  struct Lane {
    double cores = 1;
    double vtime = 0;    // processor time each runnable thread has received
    double updated = 0;  // when vtime was last brought up to date
    uint32_t runnable = 0;
    double idle_since = 0;  // when runnable last fell to 0
    uint32_t waking = 0;    // threads waking up on it (not running yet: it stays idle)
    bool was_idle = false;  // before the wake-ups being placed
    // Finish tags of its computing threads (lazy: stale entries are skipped).
    std::priority_queue<std::pair<double, uint32_t>, std::vector<std::pair<double, uint32_t>>,
                        std::greater<>>
        finishing;
    double rate() const { return runnable ? std::min(1.0, cores / runnable) : 1.0; }
    // Sharing::slices (one processor): one thread runs, the others wait their turn.
    bool sliced = false;
    uint32_t running = kNone;
    double ran_from = 0;       // since when `running`'s progress is not counted yet
    double slice_end = 0;      // when its turn ends if another thread waits
    uint32_t vacated = kNone;  // the thread that left the processor at `now`, if any
    double vacated_at = -1;
    std::deque<uint32_t> turns;      // runnable threads waiting, next first
    std::vector<uint32_t> arriving;  // attached at `now`: ordered once `now` is settled
    bool unsettled = false;
  };

  // A group of the configuration: K processors as K lanes, where each runnable thread
  // stays on the lane it ran on, as Linux keeps a thread on its processor (see place()).
  struct Pool {
    std::vector<uint32_t> lanes;
  };

  using TimeQueue = std::priority_queue<std::pair<double, uint32_t>,
                                        std::vector<std::pair<double, uint32_t>>, std::greater<>>;

  // A mutex granted to whoever asks while it is free: its holder and who blocked on it,
  // first come first woken. Present while held or waited for.
  struct Mutex {
    uint32_t holder = kNone;
    std::vector<uint32_t> waiters;  // a few: at most the other threads
  };

  SimulationConfig config;
  std::vector<StepLog>& logs;
  const std::vector<Attribution>& attributions;
  std::vector<double> share_of;  // procedure_share by attribution; < 0: not computed
  std::vector<SimThread> threads;
  std::vector<Lane> lanes;
  std::vector<Pool> pools;
  std::vector<uint32_t> shared_pools;  // pools of more than one lane
  std::vector<uint32_t> placing;       // threads to place on a lane once `now` is settled
  // settle()'s sorting of a lane's arrivals, kept between calls: made anew, they were two
  // million allocations in a replay of 2 M events.
  std::vector<uint32_t> settle_woken, settle_moved;
  std::vector<uint32_t> unsettled;  // sliced lanes whose turns change at `now`
  double next_pull = kInfinity;     // when an idle lane may next take a thread
  // The keys produced or waited for. A lock's live keys are few (its last release, and those
  // acquisitions wait for) and looked up at every hand-off: the first sits at the lock's
  // number, the others in the table with the rest. With 100,000 locks taken in turn, a table
  // of every key missed the caches at each of its three or four look-ups a hand-off, and
  // the models that keep the recorded lock order replayed 2.8 times slower. Entries move:
  // no reference into them is kept across an insertion or an erasure.
  class KeyStore {
   public:
    KeyState* find(const Key& key);
    KeyState& emplace(const Key& key);  // found, or added unproduced
    void erase(const Key& key);
    template <typename Visit>
    void for_each(Visit&& visit) const {
      for (const LockKey& l : locks_) {
        if (l.used) visit(l.state);
      }
      for (const auto& [key, k] : table_) visit(k);
    }

   private:
    struct LockKey {
      KeyState state;
      uint32_t sequence = 0;
      uint32_t in_table = 0;  // the lock's other keys, in table_
      KeyKind kind = KeyKind::create;
      bool used = false;
    };
    bool holds(const LockKey& l, const Key& key) const {
      return l.used && l.sequence == key.sequence && l.kind == key.kind;
    }
    std::vector<LockKey> locks_;  // by Key::lock
    tsl::robin_map<Key, KeyState, KeyHash> table_;
  };
  KeyStore keys;
  std::vector<std::vector<uint32_t>> wait_lists;  // threads waiting for a key, first first
  std::vector<uint32_t> free_wait_lists;
  tsl::robin_map<uint64_t, Mutex> mutexes;
  // Which signals of each condition were produced: a wake needing one that is no longer
  // a key (kept for the last kSignalsKept) must still see it was produced, however far a
  // replay lets the wakers fall behind the signallers.
  struct SignalsMade {
    uint32_t through = 0;         // every signal up to this one
    std::vector<uint32_t> ahead;  // produced after a gap: a few, another thread's are late
  };
  tsl::robin_map<uint64_t, SignalsMade> signals_made;
  // Of each condition, the critical sections signalled from (their mutex's numbers): the
  // keys of the latest kFedKept are kept; a need of one forgotten before is met.
  struct FedMade {
    std::deque<uint32_t> kept;       // in the order released
    uint32_t forgotten_through = 0;  // the largest forgotten
  };
  tsl::robin_map<uint64_t, FedMade> fed_made;
  TimeQueue delays;
  std::vector<uint32_t> work;  // threads to move on at `now`
  double now = 0;
  bool end_seen = false;
  double end_ns = 0;
  bool starved = false;
  std::optional<PathRef> end_path;
  // Every path's pieces: a piece names the one before it, so a path passes from thread to
  // thread as one number, and a path is summed up only once, at the end.
  PathPieces path_pieces;
  std::vector<uint64_t> lock_addresses;  // by Step::lock, of the locks a path held
  SimulationResult result;

  State(SimulationConfig c, std::vector<StepLog>& l, const std::vector<Attribution>& a);
  void grow();

  // ---- processors (simulation_processors.cpp) ------------------------------------------

  void add_pool(double cores);
  void bring_up_to_date(Lane& l) {
    if (now > l.updated) {
      l.vtime += (now - l.updated) * l.rate();
      l.updated = now;
    }
  }

  void attach(SimThread& t, uint32_t index, uint32_t lane);
  void detach(SimThread& t);
  void add_runnable(SimThread& t, uint32_t index);
  void remove_runnable(SimThread& t);
  double next_finish(uint32_t lane) {
    Lane& l = lanes[lane];
    if (l.sliced) return next_turn_event(l);
    while (!l.finishing.empty()) {
      const auto [tag, index] = l.finishing.top();
      const SimThread& t = threads[index];
      if (t.mode == SimThread::computing && !t.placing && t.lane == lane && t.finish_tag == tag)
        break;
      l.finishing.pop();
    }
    if (l.finishing.empty()) return kInfinity;
    return l.updated + std::max(0.0, l.finishing.top().first - l.vtime) / l.rate();
  }

  void place();
  uint32_t wake_lane(const SimThread& t);
  void balance(const Pool& pool);
  // Sharing::slices: what the running thread has done, the next change of turn, the end of
  // a step or a turn at `now`, and the turns once every thread of `now` has arrived.
  void count_progress(Lane& l);
  double next_turn_event(const Lane& l) const;
  void end_turn(uint32_t lane);
  void settle(Lane& l);
  void settle_turns();

  // ---- dependencies (simulation_dependencies.cpp) ----------------------------------------

  static bool consumed_once(KeyKind kind);
  std::vector<uint32_t>& waiters_of(KeyState& k);
  void drop_wait_list(KeyState& k);
  void collect(const Key& key, const KeyState& k, uint32_t needed);
  void consume(SimThread& t, KeyState& k, double since);
  void forget(const Key& key);
  void feed(SimThread& t, uint64_t object, uint32_t sequence);
  void note_signal(const Key& key);
  bool signal_made(const Key& key) const;
  void produce(SimThread& t, const Key& key, double migrated_ns);
  uint32_t idle_lane_for(const SimThread& t) const;
  void wake(SimThread& w, uint32_t index);
  bool wait_for_needs(SimThread& t, uint32_t index);
  bool granted_as_asked(const Step& s) const;
  void hold(SimThread& t, const Step& s);
  bool take_mutex(SimThread& t, uint32_t index, uint64_t object);
  void release_mutex(SimThread& t, uint64_t object);
  bool begin_sync(SimThread& t, uint32_t index, const Step& s);

  // ---- procedure changes (simulation_changes.cpp) ----------------------------------------

  double procedure_share(const Step& s);
  bool signal_follows(SimThread& t, const StepLog& log);

  // ---- steps, critical path, clock (simulation_clock.cpp) -------------------------------

  PathComposition compose_path(PathRef path) const;
  void charge_path(SimThread& t, uint32_t index, const Step& s, double cpu_ns, double delay_ns);
  void start_work(SimThread& t, uint32_t index, double cpu_ns, double delay_ns);
  void start_delay(SimThread& t, uint32_t index, double delay_ns);
  void move_on(uint32_t index);
  void finish_sync(SimThread& t);
  void finish_computing(uint32_t index);
  bool force_a_wait();
  bool advance();
  bool finished();
};

}  // namespace quartz::analysis
