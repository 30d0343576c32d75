// The sampler's accumulated profile: calling contexts, procedures, synchronization
// objects, threads and the whole program, each with its record (capture_format.h gives the
// record layouts). Owned and written by the sampler thread only; in mapped memory, never
// malloc. Limits are counted when reached: a context that finds no room is charged to its
// parent, a procedure or object to nothing (and counted).
#pragma once

#include <cstdint>

#include "format/capture_format.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

using support::MappedVector;

inline constexpr uint32_t kNone = 0xffffffffu;

// The tables whose records are handed out for writing, for the amendments (table_changes.h).
enum TableKind : uint32_t { kContextTable, kProcedureTable, kObjectTable, kThreadTable };
inline constexpr uint32_t kTableKinds = 4;
class TableChanges;
QUARTZ_NOINSTR void note_change(TableChanges& changes, uint32_t kind, uint32_t index);

// Where each part of a record lives, for a given processor count P and runnable bins R1.
struct RecordShape {
  uint32_t processors = 1;
  uint32_t runnable_bins = 2;

  QUARTZ_ALWAYS_INLINE size_t bins() const { return size_t{processors} + 1; }
  QUARTZ_ALWAYS_INLINE size_t full_size() const {
    return capture::full_record_size(processors, runnable_bins);
  }
  QUARTZ_ALWAYS_INLINE size_t context_size() const {
    return capture::context_record_size(processors);
  }
  // Full record.
  QUARTZ_ALWAYS_INLINE size_t processor(bool behalf) const { return behalf ? bins() : 0; }
  QUARTZ_ALWAYS_INLINE size_t normalized(bool behalf) const { return (behalf ? 3 : 2) * bins(); }
  QUARTZ_ALWAYS_INLINE size_t state(bool behalf) const {
    return 4 * bins() + (behalf ? capture::kStateCount : 0);
  }
  QUARTZ_ALWAYS_INLINE size_t runnable(uint32_t state) const {
    return 4 * bins() + 2 * capture::kStateCount + size_t{state} * runnable_bins;
  }
  // Context record.
  QUARTZ_ALWAYS_INLINE size_t context_processor() const { return 0; }
  QUARTZ_ALWAYS_INLINE size_t context_normalized() const { return bins(); }
  QUARTZ_ALWAYS_INLINE size_t context_state() const { return 2 * bins(); }
  QUARTZ_ALWAYS_INLINE size_t context_runnable_sum() const {
    return 2 * bins() + capture::kStateCount;
  }
};

struct ContextNode {
  uint32_t parent;  // kNone: directly under the root
  uint32_t entity;  // procedure index (kind procedure) or object index
  uint64_t address;
  uint32_t kind;  // capture::Kind
  uint32_t unused;
};

struct ProcedureEntry {
  uint64_t address;
  uint64_t stamp;  // last (snapshot, thread) pair that charged it: recursion counts once
};

struct ObjectEntry {
  uint64_t address;
  uint32_t kind;
  uint32_t waiters;        // threads waiting for it in the current snapshot
  uint32_t holders;        // threads holding it in the current snapshot (0 or more)
  uint32_t parties;        // a barrier's count (0: not known yet): at most parties - 1 wait
  uint64_t stamp;          // as ProcedureEntry::stamp
  uint64_t snapshot;       // last snapshot in which it was in use
  double wait_spinning_s;  // thread-seconds
  double wait_blocked_s;
  double hold_s;
};
inline constexpr uint32_t kQueueBins = 17;  // 0..15 waiters, then 16 or more

struct ThreadEntry {
  uint32_t index;
  uint32_t seen;         // 1 once sampled
  uint64_t cpu_ns;       // processor time measured while sampled
  uint64_t runqueue_ns;  // time waiting for a processor, measured while sampled
  uint32_t worked;       // 1 once busy for half a sample (attribution.h Starvation)
  uint32_t unused;
  // Processor time idle for want of threads at work while this thread ran (its share),
  // before and after the program first had P threads at work (attribution.h Starvation).
  double starved_startup_s;
  double starved_later_s;
};

// Of a context's own normalized time with one processor busy, the parts whose other
// processors were not waiting for it (attribution.h Starvation): a serial bottleneck must
// not claim them.
struct OneBusyApart {
  double starved;  // no thread at work to run (capture_format.h, context_starvation)
  double taken;    // the program's threads were ready for them (capture_format.h, context_taken)
  double waited;   // their threads waited for the slowest of a team (context_waited)
};

class ProfileTables {
 public:
  struct Limits {
    uint32_t contexts = 1u << 20;
    uint32_t procedures = 1u << 18;
    uint32_t objects = 1u << 18;
    uint32_t threads = 1u << 20;
  };

  // Reserves all storage; false if address space is not available.
  QUARTZ_NOINSTR bool init(const RecordShape& shape, const Limits& limits);
  QUARTZ_NOINSTR const RecordShape& shape() const { return shape_; }
  QUARTZ_NOINSTR const Limits& limits() const { return limits_; }
  // Becomes a copy of `other` (initialised with the same shape and limits); false when out
  // of address space.
  QUARTZ_NOINSTR bool assign(const ProfileTables& other);

  // The child of `parent` (kNone: the root) for (address, kind); `parent` when full.
  QUARTZ_NOINSTR uint32_t context(uint32_t parent, uint64_t address, uint32_t kind);
  QUARTZ_NOINSTR uint32_t procedure(uint64_t address);              // kNone when full
  QUARTZ_NOINSTR uint32_t object(uint64_t address, uint32_t kind);  // kNone when full
  QUARTZ_NOINSTR uint32_t thread(uint32_t index);                   // kNone past the limit
  // Lookups that never insert: kNone when absent.
  QUARTZ_NOINSTR uint32_t find_object(uint64_t address) const;
  QUARTZ_NOINSTR bool has_thread(uint32_t index) const {
    return index < threads_.size() && threads_[index].seen;
  }

  // Each record handed out for writing is noted in `changes` (null: none), so that the
  // amendments can tell what changed (sampler/table_changes.h). The const accessors read.
  QUARTZ_NOINSTR void track(TableChanges* changes) { changes_ = changes; }

  QUARTZ_ALWAYS_INLINE ContextNode& context_node(uint32_t i) { return contexts_[i]; }
  QUARTZ_ALWAYS_INLINE ProcedureEntry& procedure_entry(uint32_t i) {
    note(kProcedureTable, i);
    return procedures_[i];
  }
  QUARTZ_ALWAYS_INLINE ObjectEntry& object_entry(uint32_t i) {
    note(kObjectTable, i);
    return objects_[i];
  }
  QUARTZ_ALWAYS_INLINE ThreadEntry& thread_entry(uint32_t i) {
    note(kThreadTable, i);
    return threads_[i];
  }

  QUARTZ_ALWAYS_INLINE double* context_record(uint32_t i) {
    note(kContextTable, i);
    return &context_records_[size_t{i} * shape_.context_size()];
  }
  QUARTZ_ALWAYS_INLINE OneBusyApart& context_apart(uint32_t i) {
    note(kContextTable, i);
    return context_apart_[i];
  }
  QUARTZ_ALWAYS_INLINE double* procedure_record(uint32_t i) {
    note(kProcedureTable, i);
    return &procedure_records_[size_t{i} * shape_.full_size()];
  }
  QUARTZ_ALWAYS_INLINE double* object_record(uint32_t i) {
    note(kObjectTable, i);
    return &object_records_[size_t{i} * shape_.full_size()];
  }
  QUARTZ_ALWAYS_INLINE double* object_queue(uint32_t i) {
    note(kObjectTable, i);
    return &object_queues_[size_t{i} * kQueueBins];
  }
  QUARTZ_ALWAYS_INLINE double* thread_record(uint32_t i) {
    note(kThreadTable, i);
    return &thread_records_[size_t{i} * shape_.full_size()];
  }
  QUARTZ_ALWAYS_INLINE double* program_record() { return program_record_.data(); }

  QUARTZ_ALWAYS_INLINE const ContextNode& context_node(uint32_t i) const { return contexts_[i]; }
  QUARTZ_ALWAYS_INLINE const ProcedureEntry& procedure_entry(uint32_t i) const {
    return procedures_[i];
  }
  QUARTZ_ALWAYS_INLINE const ObjectEntry& object_entry(uint32_t i) const { return objects_[i]; }
  QUARTZ_ALWAYS_INLINE const ThreadEntry& thread_entry(uint32_t i) const { return threads_[i]; }
  QUARTZ_ALWAYS_INLINE const double* context_record(uint32_t i) const {
    return &context_records_[size_t{i} * shape_.context_size()];
  }
  QUARTZ_ALWAYS_INLINE const OneBusyApart& context_apart(uint32_t i) const {
    return context_apart_[i];
  }
  QUARTZ_ALWAYS_INLINE const double* procedure_record(uint32_t i) const {
    return &procedure_records_[size_t{i} * shape_.full_size()];
  }
  QUARTZ_ALWAYS_INLINE const double* object_record(uint32_t i) const {
    return &object_records_[size_t{i} * shape_.full_size()];
  }
  QUARTZ_ALWAYS_INLINE const double* object_queue(uint32_t i) const {
    return &object_queues_[size_t{i} * kQueueBins];
  }
  QUARTZ_ALWAYS_INLINE const double* thread_record(uint32_t i) const {
    return &thread_records_[size_t{i} * shape_.full_size()];
  }
  QUARTZ_ALWAYS_INLINE const double* program_record() const { return program_record_.data(); }

  QUARTZ_ALWAYS_INLINE uint32_t context_count() const {
    return static_cast<uint32_t>(contexts_.size());
  }
  QUARTZ_ALWAYS_INLINE uint32_t procedure_count() const {
    return static_cast<uint32_t>(procedures_.size());
  }
  QUARTZ_ALWAYS_INLINE uint32_t object_count() const {
    return static_cast<uint32_t>(objects_.size());
  }
  QUARTZ_ALWAYS_INLINE uint32_t thread_count() const {
    return static_cast<uint32_t>(threads_.size());
  }
  // Runnable-thread bins in use: one past the highest any record has had time in (at least
  // 2). A capture is written with that many (the bins above are empty), not the shape's 33:
  // three quarters of a full record are these bins, nearly all empty on a small machine.
  QUARTZ_ALWAYS_INLINE void note_runnable_bin(uint32_t bin) {
    if (bin + 1 > runnable_bins_used_) runnable_bins_used_ = bin + 1;
  }
  QUARTZ_ALWAYS_INLINE uint32_t runnable_bins_used() const { return runnable_bins_used_; }
  QUARTZ_ALWAYS_INLINE uint64_t dropped_contexts() const { return dropped_contexts_; }
  QUARTZ_ALWAYS_INLINE uint64_t dropped_entities() const { return dropped_entities_; }

 private:
  friend class TableChanges;  // saves records before a provisional change, and restores them

  QUARTZ_ALWAYS_INLINE void note(uint32_t kind, uint32_t i) {
    if (changes_) note_change(*changes_, kind, i);
  }

  // Open addressing over ids + 1 (0: empty); the key lives in the entries themselves.
  class IdTable {
   public:
    QUARTZ_NOINSTR bool init(uint32_t capacity_log2);
    QUARTZ_NOINSTR bool assign(const IdTable& other);
    // The id whose entry `matches`, or the one `create()` returns (kNone: full).
    template <typename Matches, typename Create, typename HashOf>
    QUARTZ_NOINSTR uint32_t find_or_add(uint64_t hash, Matches matches, Create create,
                                        HashOf hash_of);
    // The id whose entry `matches`, or kNone.
    template <typename Matches>
    QUARTZ_NOINSTR uint32_t find(uint64_t hash, Matches matches) const;

   private:
    template <typename HashOf>
    QUARTZ_NOINSTR bool grow(HashOf hash_of);
    MappedVector<uint32_t> buckets_;
    uint32_t used_ = 0;
  };

  RecordShape shape_{};
  Limits limits_{};
  MappedVector<ContextNode> contexts_;
  MappedVector<double> context_records_;
  MappedVector<OneBusyApart> context_apart_;
  IdTable context_ids_;
  MappedVector<ProcedureEntry> procedures_;
  MappedVector<double> procedure_records_;
  IdTable procedure_ids_;
  MappedVector<ObjectEntry> objects_;
  MappedVector<double> object_records_;
  MappedVector<double> object_queues_;
  IdTable object_ids_;
  MappedVector<ThreadEntry> threads_;
  MappedVector<double> thread_records_;
  MappedVector<double> program_record_;
  uint64_t dropped_contexts_ = 0;
  uint64_t dropped_entities_ = 0;
  uint32_t runnable_bins_used_ = 2;
  TableChanges* changes_ = nullptr;  // not copied by assign
};

}  // namespace quartz::sampler
