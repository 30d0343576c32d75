// The set of thread blocks, walkable by a reader (the sampler) without locks while
// threads come and go.
//
// Slots live in chunks of 64 linked into a list that only grows; a slot keeps its block
// for reuse. A slot moves free -> claimed -> live -> exited -> free:
//   claim()    free -> claimed   by the thread creating the owner (or the owner itself)
//   publish()  claimed -> live   by the owner when it starts running
//   finish()   live -> exited    by the owner as it ends, when a reader is attached, so the
//                                reader still sees its last state; with no reader the
//                                block's counters are folded at once and it goes free
//   retire()   exited -> free    by the reader, which folds the counters first
// Folding moves a block's counters into the process-wide totals; it happens exactly once
// per owner, by whoever takes the slot out of `exited` (or `live`, with no reader).
// Nothing here blocks or allocates except claim(), which maps memory for new blocks.
#pragma once

#include <atomic>
#include <cstdint>

#include "runtime/thread_block.h"
#include "support/attributes.h"

namespace quartz::rt {

enum class SlotStatus : uint32_t { free = 0, claimed, live, exited };

struct ThreadSlot {
  std::atomic<SlotStatus> status{SlotStatus::free};
  std::atomic<ThreadBlock*> block{nullptr};
  uint32_t ordinal = 0;  // position in the registry: readers index their own state by it
};

struct SlotChunk {
  static constexpr uint32_t kSlots = 64;
  constexpr explicit SlotChunk(uint32_t base) {
    for (uint32_t i = 0; i < kSlots; ++i) slots[i].ordinal = base + i;
  }
  ThreadSlot slots[kSlots];
  std::atomic<SlotChunk*> next{nullptr};
};

// Moves a block's counters into process-wide totals before the block is reused.
using FoldBlockFn = void (*)(ThreadBlock& block);

class ThreadRegistry {
 public:
  constexpr ThreadRegistry() = default;

  QUARTZ_NOINSTR void configure(const BlockGeometry& geometry, FoldBlockFn fold);

  // A free slot with a block ready for a new thread, or null when memory is exhausted.
  QUARTZ_NOINSTR ThreadSlot* claim();
  // Returns a claimed slot whose thread never started.
  QUARTZ_NOINSTR void abandon(ThreadSlot* slot);
  QUARTZ_NOINSTR void publish(ThreadSlot* slot);
  QUARTZ_NOINSTR void finish(ThreadSlot* slot);

  // Reader side. A reader that attaches sees every thread that finishes afterwards in the
  // `exited` state until it retires it.
  QUARTZ_NOINSTR void attach_reader();
  // Retires whatever is still exited.
  QUARTZ_NOINSTR void detach_reader();
  QUARTZ_NOINSTR bool retire(ThreadSlot* slot);

  // Calls visit(ThreadSlot&, SlotStatus) for every live or exited slot.
  template <typename Visit>
  QUARTZ_ALWAYS_INLINE void for_each(Visit&& visit) {
    for (SlotChunk* chunk = &first_; chunk; chunk = chunk->next.load(std::memory_order_acquire)) {
      for (ThreadSlot& slot : chunk->slots) {
        const SlotStatus status = slot.status.load(std::memory_order_acquire);
        if (status == SlotStatus::live || status == SlotStatus::exited) visit(slot, status);
      }
    }
  }

  // In a forked child only the forking thread survives: every other slot becomes free
  // (its block's counters belong to the parent and are discarded on reuse).
  QUARTZ_NOINSTR void reset_after_fork(ThreadSlot* survivor);

  // True while some thread is being created or running (a slot claimed or live).
  QUARTZ_NOINSTR bool any_thread_running() const;

  // Slots in all chunks (memory footprint is slots x block size).
  QUARTZ_NOINSTR uint32_t slot_count() const;

 private:
  QUARTZ_NOINSTR ThreadBlock* prepare_block(ThreadSlot& slot);
  QUARTZ_NOINSTR SlotChunk* append_chunk(SlotChunk* last);

  BlockGeometry geometry_{};
  FoldBlockFn fold_ = nullptr;
  std::atomic<int> readers_{0};
  SlotChunk first_{0};
};

}  // namespace quartz::rt
