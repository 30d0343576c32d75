#include "runtime/object_registry.h"

#include <new>

#include "runtime/mapped_memory.h"
#include "runtime/thread_counters.h"

namespace quartz::rt {
namespace {
// Past this many probes the table counts as full: inserts happen on slow paths, but a full
// table must not turn each of them into a scan.
constexpr uint32_t kMaxSharedProbes = 64;
// find_or_insert's `kind` for an object only being named.
constexpr auto kUnsetKind = static_cast<EntryKind>(0xff);
}  // namespace

bool ObjectRegistry::configure(uint32_t capacity_log2) {
  const uint32_t capacity = uint32_t{1} << capacity_log2;
  void* memory = map_zeroed(sizeof(ObjectRecord) * capacity);
  if (!memory) return false;
  records_ = new (memory) ObjectRecord[capacity];
  mask_ = capacity - 1;
  shift_ = 64 - capacity_log2;
  return true;
}

ObjectRecord* ObjectRegistry::find_or_insert(uintptr_t address, EntryKind kind, uintptr_t site) {
  if (!records_ || address == 0) return nullptr;
  const uint32_t home = fib_hash(address, shift_);
  for (uint32_t probe = 0; probe <= mask_ && probe < kMaxSharedProbes; ++probe) {
    ObjectRecord& r = records_[(home + probe) & mask_];
    uintptr_t key = r.address.load(std::memory_order_acquire);
    if (key == 0 && r.address.compare_exchange_strong(key, address, std::memory_order_acq_rel)) {
      r.kind.store(kind == kUnsetKind ? kKindUnset : static_cast<uint32_t>(kind),
                   std::memory_order_relaxed);
      r.first_site.store(site, std::memory_order_relaxed);
      return &r;
    }
    if (key != address) continue;  // (or another thread inserted it first)
    if (r.kind.load(std::memory_order_relaxed) == kKindUnset && kind != kUnsetKind) {
      uint32_t unset = kKindUnset;
      r.kind.compare_exchange_strong(unset, static_cast<uint32_t>(kind), std::memory_order_relaxed);
    }
    if (site != 0 && r.first_site.load(std::memory_order_relaxed) == 0) {
      uintptr_t none = 0;
      r.first_site.compare_exchange_strong(none, site, std::memory_order_relaxed);
    }
    return &r;
  }
  dropped_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

ObjectRecord* ObjectRegistry::find(uintptr_t address) const {
  if (!records_ || address == 0) return nullptr;
  const uint32_t home = fib_hash(address, shift_);
  for (uint32_t probe = 0; probe <= mask_ && probe < kMaxSharedProbes; ++probe) {
    ObjectRecord& r = records_[(home + probe) & mask_];
    const uintptr_t key = r.address.load(std::memory_order_acquire);
    if (key == address) return &r;
    if (key == 0) return nullptr;
  }
  return nullptr;
}

void ObjectRegistry::set_name(uintptr_t address, const char* name) {
  ObjectRecord* r = find_or_insert(address, kUnsetKind, 0);
  if (!r || !name) return;
  uint32_t unlocked = 0;
  while (!r->name_lock.compare_exchange_weak(unlocked, 1, std::memory_order_acquire)) {
    unlocked = 0;
  }
  uint32_t i = 0;
  for (; i + 1 < kObjectNameBytes && name[i]; ++i) r->name[i] = name[i];
  r->name[i] = '\0';
  r->named.store(1, std::memory_order_relaxed);
  r->name_lock.store(0, std::memory_order_release);
}

void ObjectRegistry::copy_name(const ObjectRecord& record, char* out) {
  auto& r = const_cast<ObjectRecord&>(record);
  out[0] = '\0';
  if (!r.named.load(std::memory_order_relaxed)) return;
  uint32_t unlocked = 0;
  while (!r.name_lock.compare_exchange_weak(unlocked, 1, std::memory_order_acquire)) {
    unlocked = 0;
  }
  for (uint32_t i = 0; i < kObjectNameBytes; ++i) out[i] = r.name[i];
  out[kObjectNameBytes - 1] = '\0';
  r.name_lock.store(0, std::memory_order_release);
}

void ObjectRegistry::reset_counters() {
  for (uint32_t i = 0; i < capacity(); ++i) {
    ObjectRecord& r = records_[i];
    if (r.address.load(std::memory_order_relaxed) == 0) continue;
    r.acquisitions.store(0, std::memory_order_relaxed);
    r.contended.store(0, std::memory_order_relaxed);
    r.wait_ticks.store(0, std::memory_order_relaxed);
    r.posts.store(0, std::memory_order_relaxed);
    r.name_lock.store(0, std::memory_order_relaxed);
  }
}

}  // namespace quartz::rt
