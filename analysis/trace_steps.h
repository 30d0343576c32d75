// From a trace's records to what each thread did, as the what-if simulation replays it
// (DESIGN.md §3 "LBF and CP"): between two synchronization events a thread *works* (needs
// a processor for some processor time) or is *delayed* (off the processor, not waiting for
// another thread: I/O, sleep); at an event it hands something to another thread or waits
// for something from one.
//
// Processor time comes from the sampler's readings of each thread's CPU clock, shared out
// over the wall time between them that the thread did not spend waiting for another
// thread. What it did not run is split into time *ready* (preempted: an artefact of the
// recorded placement, dropped) and *blocked in the kernel* (kept as delay) by its run-queue
// time (schedstat). Overhead compensation (Wolf et al.): the calibrated cost of each trace
// event and hook event is taken out of the segment's processor time; the predicted
// timelines are then rebuilt from these segments and the recorded dependencies, so every
// event still follows whatever it followed in the recording.
#pragma once

#include <tsl/robin_map.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/block_queue.h"
#include "format/trace_format.h"
#include "profile/trace_reader.h"

namespace quartz::analysis {

inline constexpr uint32_t kNoContext = 0xffffffffu;
// Where a thread read with no procedure on its stack was: in none (outside the procedures
// `--procedures` patched, say). In attributions like a context no procedure is on.
inline constexpr uint32_t kNoProcedure = 0xfffffffeu;
inline constexpr uint32_t kNoAttribution = 0xffffffffu;
inline constexpr uint32_t kNoLock = 0xffffffffu;

// Which calling contexts a work step's time belongs to: (context, weight), weights adding
// up to 1.
using Attribution = std::vector<std::pair<uint32_t, double>>;

// A work step's and a sync step's own fields share their place (each is read only for its
// kind): a replay's window holds a million steps or more, each first touched and then read
// by every model's replay.
struct Step {
  enum Kind : uint8_t { work, sync };
  Kind kind = work;
  trace::Type type{};       // sync
  uint8_t object_kind = 0;  // sync
  bool spinning = false;    // work: in a spin region; sync: a wait that spins (spin lock)
  bool depends = false;     // sync: it waits for another thread's step (pairing known)
  union {
    // Work: where its time belongs (StepAssembler::attributions), kNoAttribution if unknown.
    uint32_t attribution = kNoAttribution;
    // A lock's acquisition or release: the lock's number, in the order the trace first used
    // each (kNoLock otherwise, the same bits). A replay keeps a lock's state at that index:
    // looked up by address, 100,000 locks taken in turn missed the caches at every hand-off.
    uint32_t lock;
  };
  uint32_t sequence = 0;  // sync
  union {
    double cpu_ns = 0;  // work
    uint64_t object;    // sync
  };
  union {
    double delay_ns = 0;  // work
    uint32_t aux;         // sync
  };
  double observed_ns = 0;  // when it started in the recording
};
static_assert(kNoAttribution == kNoLock, "a sync step's lock is kNoLock unless set");
static_assert(sizeof(Step) == 40, "a step stays 40 bytes: millions are held at once");

// One thread's steps, appended as the trace is read and consumed by any number of
// simulations, each through its own position; the assembler drops the steps every reader
// has passed (StepAssembler::trim).
class StepLog : public BlockQueue<Step, 10> {
 public:
  bool ended = false;  // no more steps will come
};

struct AssemblerCosts {
  double trace_event_ns = 0;  // calibrated cost of one trace event on the recording thread
  double hook_event_ns = 0;   // of one hook event (half a pair)
  double cpu_read_ns = 0;     // of the thread reading its CPU clock for the trace
  // Processor time left after the costs above, times this: the program's own unprofiled
  // processor time over the recorded (a --baseline, the costs above then 0); 1: none.
  double cpu_scale = 1;
  bool run_queue_measured = true;  // false: no schedstat; time not run counts as ready
};

struct AssemblerTotals {
  uint64_t records = 0, events = 0, samples = 0, dropped = 0;
  uint64_t unpaired_waits = 0;  // waits whose partner is unknown: replayed as delays
  double compensated_ns = 0;    // overhead taken out of processor time
  uint64_t peak_pending = 0;    // records held back at once (the assembler's window)
};

class StepAssembler {
 public:
  StepAssembler(uint32_t threads, AssemblerCosts costs);

  // Takes one chunk's records (each thread's in order).
  void add(const std::vector<profile::TraceRecord>& records);
  // The trace has ended: every thread's remaining steps are final.
  void finish();

  std::vector<StepLog>& logs() { return logs_; }
  // Drops the steps of `thread` before `position`, which every reader has passed.
  void trim(uint32_t thread, uint64_t position) { logs_[thread].trim(position, step_blocks_); }
  // Indexed by Step::attribution; entries are only ever added.
  const std::vector<Attribution>& attributions() const { return attributions_; }
  const AssemblerTotals& totals() const { return totals_; }
  // Each condition variable's use, by address: who a task pool's queue feeds (task_pools.h).
  struct ConditionUse {
    std::vector<uint32_t> waiters;     // the threads that waited on it, in index order
    std::vector<uint32_t> signallers;  // that signalled it (broadcasts aside), in index order
    uint64_t signals = 0, broadcasts = 0;
    uint32_t mutex = kNoLock;  // its mutex (Step::lock), released as the first wait began
    // The threads that took that mutex since (mutex_takers), in index order.
    std::vector<uint32_t> takers;
    bool operator==(const ConditionUse&) const = default;
  };
  const tsl::robin_map<uint64_t, ConditionUse>& conditions() const { return conditions_; }
  // The threads that took a condition's mutex (ConditionUse::mutex) since a wait used it.
  std::vector<uint32_t> mutex_takers(uint32_t lock) const;

 private:
  // 88 bytes: a sampler that stalled left 583,000 of them waiting for its next readings.
  struct Piece {
    double start_ns = 0, end_ns = 0;
    double overhead_ns = 0;
    double cpu_ns = -1;  // set at the CPU reading after it
    uint32_t context_begin = kNoContext, context_end = kNoContext;  // busy readings around it
    uint32_t attribution = kNoAttribution;  // from its segment, once that ended
    bool waiting = false, spinning = false;
    bool has_sync = false;  // the event that ended it follows
    Step sync;
  };
  static_assert(sizeof(Piece) == 88);
  struct Thread {
    std::deque<profile::TraceRecord> samples;  // held until the events before them arrived
    BlockQueue<Piece, 9> pieces;               // not yet final, by position
    double last_ns = 0;
    bool started = false, exited = false;
    bool waiting = false, spinning = false, wait_spins = false;
    uint32_t wait_sequence = 0;  // a condition's signals when the wait began
    uint32_t context = kNoContext;
    uint32_t last_released = kNoLock;  // the lock it released last (Step::lock)
    double cpu_anchor_ns = 0, cpu_anchor_cpu = 0;
    bool has_cpu_anchor = false;
    uint64_t cpu_resolved = 0;  // the pieces before this position have cpu_ns
    double last_rate = 1;
    double runqueue_anchor = 0;
    bool has_runqueue_anchor = false;
    double last_ready_share = 0;
    double pending_overhead = 0;
    // The segment since the last sync event: what began it, the contexts of the busy
    // readings inside it, and its first piece.
    uint64_t segment_begin = 0;
    std::vector<std::pair<uint32_t, double>> segment_contexts;  // (context, weight)
    uint64_t segment_first_piece = 0;
  };
  // Segments that begin and end with the same events (the same code path run again, by any
  // thread) pool the sampler's readings: a segment shorter than the sampling period rarely
  // holds a reading itself, but the path's readings say where such segments spend time.
  // A reading votes with the thread's CPU rate just before it: a preempted thread's
  // context says nothing about where its work went.
  struct PathVotes {
    std::map<uint32_t, double> contexts;
    double total = 0;
    uint32_t snapshot = kNoAttribution;  // attributions_ index of the latest snapshot
    double snapshot_total = 0;
  };

  void event(Thread& t, uint32_t index, const profile::TraceRecord& r);
  void sample(Thread& t, uint32_t index, const profile::TraceRecord& r);
  void place_readings(Thread& t, uint32_t index, uint64_t through_ns);
  void close_piece(Thread& t, double until_ns, double overhead_ns);
  void resolve_cpu(Thread& t, double cpu_ns, bool final);
  void resolve_ready(Thread& t, uint32_t index, double runqueue_ns, bool known);
  void emit(Thread& t, uint32_t index, uint64_t until, double ready_share);
  bool paired(const Thread& t, const profile::TraceRecord& r) const;
  void flush_thread(Thread& t, uint32_t index);
  void end_segment(Thread& t, const profile::TraceRecord& r);
  uint32_t attribution_between(uint32_t begin, uint32_t end);
  static void add_thread(std::vector<uint32_t>& threads, uint32_t index);

  AssemblerCosts costs_;
  std::vector<Thread> threads_;
  std::vector<StepLog> logs_;
  // Blocks the logs and the threads' pieces dropped, for the next: the window of a trace
  // is touched once, not grown and copied.
  StepLog::Pool step_blocks_;
  BlockQueue<Piece, 9>::Pool piece_blocks_;
  AssemblerTotals totals_;
  uint64_t pending_ = 0;
  std::vector<Attribution> attributions_;
  std::unordered_map<uint64_t, PathVotes> paths_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> between_;  // fallback attributions
  tsl::robin_map<uint64_t, uint32_t> locks_;                   // Step::lock by address
  tsl::robin_map<uint64_t, ConditionUse> conditions_;
  // By Step::lock, the takers of the mutexes conditions wait with (nullptr for the others):
  // one look-up of a lock's number at each acquisition.
  std::vector<std::vector<uint32_t>*> condition_mutexes_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> mutex_takers_;  // stable addresses
};

}  // namespace quartz::analysis
