// A window of snapshots (docs/design.md "Sampler"): each thread's calling context and state
// at each snapshot, and its processor and run-queue time over the window, as the sampler
// reads them; attribution.h turns a window into normalized processor time.
#pragma once

#include <cstdint>

#include "sampler/tables.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

// Roles of the top stack entry, as the runtime records them (EntryRole).
enum TopRole : uint8_t { kRoleNone = 0, kRoleWaiting = 1, kRoleHolding = 2, kRoleReleased = 3 };

// The share of each interval a thread existed (ThreadSample::present), from its creation
// and end, counting each stretch of its life once. A thread's first sample also carries
// the time since its creation that no snapshot saw (it had not started running yet), and a
// sample read after the thread stored its end (its slot may still say live) the time it
// lived while the walk went on past the snapshot's time, so a share can exceed 1; the next
// sample then starts where that one stopped. Its state times add up to its lifetime.
struct LifeCount {
  uint64_t counted_to_ns = 0;  // the end of the last stretch counted; 0: none yet

  // `born_ns`, `ended_ns`: 0 when not known (yet); the interval is (`start_ns`, `now`].
  QUARTZ_NOINSTR float share(uint64_t born_ns, uint64_t ended_ns, uint64_t start_ns, uint64_t now) {
    if (now <= start_ns) return 1;
    uint64_t from = born_ns > start_ns || (counted_to_ns == 0 && born_ns) ? born_ns : start_ns;
    if (from < counted_to_ns) from = counted_to_ns;
    const uint64_t to = ended_ns ? ended_ns : now;
    if (to <= from) return 0;
    counted_to_ns = to;
    return static_cast<float>(static_cast<double>(to - from) / static_cast<double>(now - start_ns));
  }
};

// One thread at one snapshot.
struct ThreadSample {
  uint32_t thread;         // thread index
  uint32_t window_thread;  // index into Window::threads
  uint32_t context;        // the leaf calling context; kNone when the stack is empty
  uint8_t state;           // capture::kBusy, kSpinning or kBlocked, as the runtime saw it
  uint8_t top_role;        // TopRole of the leaf
  uint16_t unused;
  // The thread's processor time credited to this sample (from its CPU clock), as a share
  // of the interval; may exceed 1 (its part of the next interval's, by the CPU-share
  // rule below). < 0: unknown.
  // A blocked sample's is the time it ran in the interval before its wait (`ran_*`).
  float run;
  // The share of the interval the thread existed: less than 1 when it was created or ended
  // inside it. Its state times add up to this, so a thread's add up to its lifetime.
  float present = 1;
  // A blocked sample's time before its wait ran where the thread was last seen running:
  // that sample's context, state and role (kNone: not yet seen running).
  uint32_t ran_context = kNone;
  uint8_t ran_state = 0;
  uint8_t ran_role = kRoleNone;
  // The mutex its wait released (StackRead::released): not held while it waits.
  uint32_t released = kNone;
};

struct SnapshotRecord {
  uint64_t duration_ns;  // the interval this snapshot stands for
  uint32_t first;        // its first ThreadSample
  uint32_t count;
  bool entries_off;  // read with entries turned off: its samples go by config.hidden
};

// One thread's CPU progress over a window.
struct WindowThread {
  uint32_t thread;
  uint32_t measured;      // 1 when cpu_ns and runqueue_ns are valid
  int32_t tid;            // for the sampler, which measures it
  uint32_t track;         // for the sampler: the registry slot it was read from
  uint64_t cpu_ns;        // processor time during the window
  uint64_t runqueue_ns;   // time runnable but waiting for a processor
  uint64_t hook_events;   // hook calls during the window (overhead compensation)
  double active_ns;       // derived: sampled busy or spinning, while present
  double clocked_ns;      // derived: active time whose samples read the CPU clock
  double clocked_run_ns;  // derived: of it, time running
  double run;             // derived: running share of active time, for samples not measured
  double on_cpu;          // derived: the same, the hooks' cost included (state time)
  double ready;           // derived: ready share of active time, for samples not measured
  double ready_ratio;     // derived: ready part of a measured sample's shortfall
  double run_scale;       // derived: hook overhead taken out of a measured sample's share
  double fill;            // derived: share of a measured sample's room below its presence
                          // that runs, for the running a share capped at presence lost
  double capped_run_ns;   // derived: running in clocked samples, each capped at presence
  double room_ns;         // derived: clocked samples' presence not running
  double ready_used_ns;   // derived: ready time charged to its samples
  // derived: processor time measured that no sample of the window took (a clocked sample's
  // interval reaches back into the window before, whose measurement had that part), given
  // to the next window by the sampler
  double cpu_unplaced_ns;
};

class Window {
 public:
  QUARTZ_NOINSTR bool init(uint32_t max_snapshots, uint32_t max_samples, uint32_t max_threads);
  // With `other`'s bounds (a window to copy it into).
  QUARTZ_NOINSTR bool init_like(const Window& other) {
    return init(static_cast<uint32_t>(other.snapshots_.capacity()),
                static_cast<uint32_t>(other.samples_.capacity()),
                static_cast<uint32_t>(other.threads_.capacity()));
  }
  QUARTZ_NOINSTR void clear();
  // Becomes a copy of `other` (initialised with the same bounds).
  QUARTZ_NOINSTR bool assign(const Window& other);
  // Starts a new window holding only the current one's last snapshot (its threads keep
  // their identities; their measurements start again). A sample's processor time is only
  // complete once the next snapshot is read, so the last snapshot waits for the next window.
  QUARTZ_NOINSTR void carry_last_snapshot();

  // Starts a snapshot; then add_sample for each thread. False when the window is full.
  QUARTZ_NOINSTR bool begin_snapshot(uint64_t duration_ns, bool entries_off = false);
  QUARTZ_NOINSTR bool add_sample(const ThreadSample& sample);
  // The window's entry for a thread (created zeroed on first use, `*created` then set);
  // null when full. `*position` is a hint, updated to the entry's position.
  QUARTZ_NOINSTR WindowThread* thread(uint32_t thread_index, uint32_t* position, bool* created);

  QUARTZ_ALWAYS_INLINE uint32_t snapshot_count() const {
    return static_cast<uint32_t>(snapshots_.size());
  }
  QUARTZ_ALWAYS_INLINE uint32_t thread_count() const {
    return static_cast<uint32_t>(threads_.size());
  }
  QUARTZ_ALWAYS_INLINE WindowThread& thread_at(uint32_t i) { return threads_[i]; }
  QUARTZ_ALWAYS_INLINE const SnapshotRecord& snapshot(uint32_t i) const { return snapshots_[i]; }
  QUARTZ_ALWAYS_INLINE const ThreadSample& sample(uint32_t i) const { return samples_[i]; }
  QUARTZ_ALWAYS_INLINE ThreadSample& sample(uint32_t i) { return samples_[i]; }
  // Position the next add_sample() will fill.
  QUARTZ_ALWAYS_INLINE uint32_t next_sample() const {
    return static_cast<uint32_t>(samples_.size());
  }
  QUARTZ_ALWAYS_INLINE bool full() const {
    return snapshots_.size() == snapshots_.capacity() ||
           samples_.size() + threads_.capacity() > samples_.capacity();
  }

 private:
  support::MappedVector<SnapshotRecord> snapshots_;
  support::MappedVector<ThreadSample> samples_;
  support::MappedVector<WindowThread> threads_;
  support::MappedVector<WindowThread> scratch_;  // carry_last_snapshot's copy of its threads
};

}  // namespace quartz::sampler
