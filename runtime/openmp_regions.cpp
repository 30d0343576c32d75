#include "runtime/openmp_regions.h"

namespace quartz::rt::openmp {

constinit OwnObject g_idle{0, false, "omp idle (workers between regions)"};

namespace {

// Open addressing over a fixed table: a program has a few dozen region sites.
constexpr uint32_t kSlots = 256;
struct Slot {
  std::atomic<uintptr_t> site{0};
  std::atomic<int32_t> running{0};
};
constinit Slot g_slots[kSlots];

// The slot of `site`, claiming a free one when `claim`; null when absent or full.
Slot* slot_of(uintptr_t site, bool claim) {
  if (site == 0) return nullptr;
  const uint32_t start = static_cast<uint32_t>((site >> 4) * 0x9E3779B1u) % kSlots;
  for (uint32_t probe = 0; probe < kSlots; ++probe) {
    Slot& slot = g_slots[(start + probe) % kSlots];
    uintptr_t seen = slot.site.load(std::memory_order_acquire);
    if (seen == site) return &slot;
    if (seen != 0) continue;
    if (!claim) return nullptr;
    if (slot.site.compare_exchange_strong(seen, site, std::memory_order_acq_rel) || seen == site) {
      return &slot;
    }
  }
  return nullptr;
}

}  // namespace

void region_started(uintptr_t site) {
  if (Slot* slot = slot_of(site, true)) slot->running.fetch_add(1, std::memory_order_release);
}

void region_ended(uintptr_t site) {
  if (Slot* slot = slot_of(site, false)) slot->running.fetch_sub(1, std::memory_order_release);
}

bool region_over(uintptr_t site) {
  const Slot* slot = slot_of(site, false);
  return slot != nullptr && slot->running.load(std::memory_order_acquire) <= 0;
}

}  // namespace quartz::rt::openmp
