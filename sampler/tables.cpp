#include "sampler/tables.h"

#include <cstring>

namespace quartz::sampler {
namespace {

QUARTZ_ALWAYS_INLINE uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}
QUARTZ_ALWAYS_INLINE uint64_t context_hash(uint32_t parent, uint64_t address, uint32_t kind) {
  return mix(address ^ mix((uint64_t{parent} << 32) | kind));
}

}  // namespace

bool ProfileTables::IdTable::init(uint32_t capacity_log2) {
  used_ = 0;
  if (!buckets_.reserve(size_t{1} << capacity_log2)) return false;
  return buckets_.resize_at_least(size_t{1} << capacity_log2);
}

bool ProfileTables::IdTable::assign(const IdTable& other) {
  if (buckets_.capacity() < other.buckets_.size() && !buckets_.reserve(other.buckets_.size())) {
    return false;
  }
  used_ = other.used_;
  return buckets_.assign(other.buckets_);
}

template <typename HashOf>
bool ProfileTables::IdTable::grow(HashOf hash_of) {
  MappedVector<uint32_t> bigger;
  const size_t capacity = buckets_.size() * 2;
  if (!bigger.reserve(capacity) || !bigger.resize_at_least(capacity)) return false;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    const uint32_t id_plus_one = buckets_[i];
    if (id_plus_one == 0) continue;
    size_t b = hash_of(id_plus_one - 1) & (capacity - 1);
    while (bigger[b] != 0) b = (b + 1) & (capacity - 1);
    bigger[b] = id_plus_one;
  }
  buckets_.swap(bigger);
  return true;
}

template <typename Matches, typename Create, typename HashOf>
uint32_t ProfileTables::IdTable::find_or_add(uint64_t hash, Matches matches, Create create,
                                             HashOf hash_of) {
  if ((used_ + 1) * 2 > buckets_.size() && !grow(hash_of)) return kNone;
  const size_t mask = buckets_.size() - 1;
  for (size_t b = hash & mask;; b = (b + 1) & mask) {
    const uint32_t id_plus_one = buckets_[b];
    if (id_plus_one == 0) {
      const uint32_t id = create();
      if (id == kNone) return kNone;
      buckets_[b] = id + 1;
      ++used_;
      return id;
    }
    if (matches(id_plus_one - 1)) return id_plus_one - 1;
  }
}

template <typename Matches>
uint32_t ProfileTables::IdTable::find(uint64_t hash, Matches matches) const {
  const size_t mask = buckets_.size() - 1;
  for (size_t b = hash & mask;; b = (b + 1) & mask) {
    const uint32_t id_plus_one = buckets_[b];
    if (id_plus_one == 0) return kNone;
    if (matches(id_plus_one - 1)) return id_plus_one - 1;
  }
}

uint32_t ProfileTables::find_object(uint64_t address) const {
  return object_ids_.find(mix(address), [&](uint32_t i) { return objects_[i].address == address; });
}

bool ProfileTables::init(const RecordShape& shape, const Limits& limits) {
  shape_ = shape;
  limits_ = limits;
  return contexts_.reserve(limits.contexts) &&
         context_records_.reserve(size_t{limits.contexts} * shape.context_size()) &&
         context_apart_.reserve(limits.contexts) && context_ids_.init(12) &&
         procedures_.reserve(limits.procedures) &&
         procedure_records_.reserve(size_t{limits.procedures} * shape.full_size()) &&
         procedure_ids_.init(10) && objects_.reserve(limits.objects) &&
         object_records_.reserve(size_t{limits.objects} * shape.full_size()) &&
         object_queues_.reserve(size_t{limits.objects} * kQueueBins) && object_ids_.init(8) &&
         threads_.reserve(limits.threads) &&
         thread_records_.reserve(size_t{limits.threads} * shape.full_size()) &&
         program_record_.reserve(shape.full_size()) &&
         program_record_.resize_at_least(shape.full_size());
}

bool ProfileTables::assign(const ProfileTables& other) {
  shape_ = other.shape_;
  limits_ = other.limits_;
  dropped_contexts_ = other.dropped_contexts_;
  dropped_entities_ = other.dropped_entities_;
  runnable_bins_used_ = other.runnable_bins_used_;
  return contexts_.assign(other.contexts_) && context_records_.assign(other.context_records_) &&
         context_apart_.assign(other.context_apart_) && context_ids_.assign(other.context_ids_) &&
         procedures_.assign(other.procedures_) &&
         procedure_records_.assign(other.procedure_records_) &&
         procedure_ids_.assign(other.procedure_ids_) && objects_.assign(other.objects_) &&
         object_records_.assign(other.object_records_) &&
         object_queues_.assign(other.object_queues_) && object_ids_.assign(other.object_ids_) &&
         threads_.assign(other.threads_) && thread_records_.assign(other.thread_records_) &&
         program_record_.assign(other.program_record_);
}

uint32_t ProfileTables::procedure(uint64_t address) {
  const uint32_t id = procedure_ids_.find_or_add(
      mix(address), [&](uint32_t i) { return procedures_[i].address == address; },
      [&]() -> uint32_t {
        ProcedureEntry* e = procedures_.append();
        if (!e || !procedure_records_.resize_at_least(procedures_.size() * shape_.full_size())) {
          return kNone;
        }
        e->address = address;
        return static_cast<uint32_t>(procedures_.size() - 1);
      },
      [&](uint32_t i) { return mix(procedures_[i].address); });
  if (id == kNone) ++dropped_entities_;
  return id;
}

uint32_t ProfileTables::object(uint64_t address, uint32_t kind) {
  const uint32_t id = object_ids_.find_or_add(
      mix(address), [&](uint32_t i) { return objects_[i].address == address; },
      [&]() -> uint32_t {
        ObjectEntry* e = objects_.append();
        if (!e || !object_records_.resize_at_least(objects_.size() * shape_.full_size()) ||
            !object_queues_.resize_at_least(objects_.size() * kQueueBins)) {
          return kNone;
        }
        e->address = address;
        e->kind = kind;
        e->snapshot = ~uint64_t{0};
        return static_cast<uint32_t>(objects_.size() - 1);
      },
      [&](uint32_t i) { return mix(objects_[i].address); });
  if (id == kNone) ++dropped_entities_;
  return id;
}

uint32_t ProfileTables::context(uint32_t parent, uint64_t address, uint32_t kind) {
  const uint32_t id = context_ids_.find_or_add(
      context_hash(parent, address, kind),
      [&](uint32_t i) {
        const ContextNode& n = contexts_[i];
        return n.parent == parent && n.address == address && n.kind == kind;
      },
      [&]() -> uint32_t {
        const uint32_t entity =
            kind == capture::kProcedure ? procedure(address) : object(address, kind);
        if (entity == kNone) return kNone;
        ContextNode* n = contexts_.append();
        if (!n || !context_records_.resize_at_least(contexts_.size() * shape_.context_size()) ||
            !context_apart_.resize_at_least(contexts_.size())) {
          return kNone;
        }
        *n = ContextNode{parent, entity, address, kind, 0};
        return static_cast<uint32_t>(contexts_.size() - 1);
      },
      [&](uint32_t i) {
        const ContextNode& n = contexts_[i];
        return context_hash(n.parent, n.address, n.kind);
      });
  if (id == kNone) {
    ++dropped_contexts_;
    return parent;
  }
  return id;
}

uint32_t ProfileTables::thread(uint32_t index) {
  if (index >= limits_.threads) return kNone;
  if (index >= threads_.size()) {
    threads_.resize_at_least(size_t{index} + 1);
    thread_records_.resize_at_least((size_t{index} + 1) * shape_.full_size());
  }
  ThreadEntry& t = threads_[index];
  t.index = index;
  t.seen = 1;
  return index;
}

}  // namespace quartz::sampler
