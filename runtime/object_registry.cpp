#include "runtime/object_registry.h"

namespace quartz::rt {
namespace {
// find_or_insert's `kind` for an object only being named.
constexpr auto kUnsetKind = static_cast<EntryKind>(0xff);

// Keeps the call chain from `site` outwards. The walk starts in the runtime's own frames
// (this function, the wrapper): they end where `site`, the wrapper's return address, is
// found. Without a walker, or when `site` is not in the walk (a frame the walker could not
// step through), only `site` is kept.
void keep_acquired_from(ObjectRecord& r, uintptr_t site, StackWalker walk) {
  constexpr uint32_t kOwnFrames = 12;  // at most, between the wrapper and here
  uintptr_t chain[kOwnFrames + kAcquiredFromFrames];
  const uint32_t n = walk ? walk(chain, kOwnFrames + kAcquiredFromFrames) : 0;
  uint32_t from = 0;
  while (from < n && chain[from] != site) ++from;
  uint32_t kept = 0;
  if (from == n) {
    r.acquired_from[kept++].store(site, std::memory_order_relaxed);
  } else {
    for (uint32_t i = from; i < n && kept < kAcquiredFromFrames; ++i) {
      r.acquired_from[kept++].store(chain[i], std::memory_order_relaxed);
    }
  }
  r.frames.store(kept, std::memory_order_release);
}
}  // namespace

ObjectRecord* ObjectRegistry::find_or_insert(uintptr_t address, EntryKind kind, uintptr_t site) {
  if (address == 0 || !table_.configured()) return nullptr;
  bool gave_site = false;  // this call gave the record its site: it walks the chain
  ObjectRecord* record = table_.probe(address, [&](ObjectRecord& r) {
    uintptr_t key = r.address.load(std::memory_order_acquire);
    if (key == 0 && r.address.compare_exchange_strong(key, address, std::memory_order_acq_rel)) {
      r.kind.store(kind == kUnsetKind ? kKindUnset : static_cast<uint32_t>(kind),
                   std::memory_order_relaxed);
      r.first_site.store(site, std::memory_order_relaxed);
      gave_site = site != 0;
      table_.note_claimed(r);
      return Probe::found;
    }
    if (key != address) return Probe::next;  // (or another thread inserted it first)
    if (r.kind.load(std::memory_order_relaxed) == kKindUnset && kind != kUnsetKind) {
      uint32_t unset = kKindUnset;
      r.kind.compare_exchange_strong(unset, static_cast<uint32_t>(kind), std::memory_order_relaxed);
    }
    if (site != 0 && r.first_site.load(std::memory_order_relaxed) == 0) {
      uintptr_t none = 0;
      gave_site = r.first_site.compare_exchange_strong(none, site, std::memory_order_relaxed);
    }
    return Probe::found;
  });
  if (!record) table_.count_dropped(1);
  if (gave_site) keep_acquired_from(*record, site, walk_);
  return record;
}

ObjectRecord* ObjectRegistry::find(uintptr_t address) const {
  if (address == 0) return nullptr;
  return table_.probe(
      address,
      [address](const ObjectRecord& r) {
        const uintptr_t key = r.address.load(std::memory_order_acquire);
        return key == address ? Probe::found : key == 0 ? Probe::absent : Probe::next;
      },
      /*grow=*/false);
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
  table_.for_each_claimed([](ObjectRecord& r) {
    r.acquisitions.store(0, std::memory_order_relaxed);
    r.contended.store(0, std::memory_order_relaxed);
    r.wait_ticks.store(0, std::memory_order_relaxed);
    r.posts.store(0, std::memory_order_relaxed);
    r.name_lock.store(0, std::memory_order_relaxed);
  });
}

}  // namespace quartz::rt
