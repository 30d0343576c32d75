#include "runtime/thread_registry.h"

#include <sys/mman.h>

#include <new>

#include "support/mapped_memory.h"

namespace quartz::rt {

void ThreadRegistry::configure(const BlockGeometry& geometry, FoldBlockFn fold) {
  geometry_ = geometry;
  fold_ = fold;
}

ThreadBlock* ThreadRegistry::prepare_block(ThreadSlot& slot) {
  ThreadBlock* block = slot.block.load(std::memory_order_relaxed);
  if (block) {
    block->reuse();
    block->edges.clear();
    block->objects.clear();
    return block;
  }
  void* memory = support::map_zeroed(ThreadBlock::bytes_for(geometry_));
  if (!memory) return nullptr;
  block = ThreadBlock::create_in(memory, geometry_);
  slot.block.store(block, std::memory_order_release);
  return block;
}

SlotChunk* ThreadRegistry::append_chunk(SlotChunk* last) {
  void* memory = support::map_zeroed(sizeof(SlotChunk));
  if (!memory) return nullptr;
  auto* fresh = new (memory) SlotChunk(last->slots[0].ordinal + SlotChunk::kSlots);
  SlotChunk* expected = nullptr;
  while (!last->next.compare_exchange_weak(expected, fresh, std::memory_order_acq_rel)) {
    if (expected) {  // someone else appended: go to the end of the list
      last = expected;
      expected = nullptr;
      new (memory) SlotChunk(last->slots[0].ordinal + SlotChunk::kSlots);
    }
  }
  return fresh;
}

ThreadSlot* ThreadRegistry::claim() {
  SlotChunk* chunk = &first_;
  for (;;) {
    for (ThreadSlot& slot : chunk->slots) {
      SlotStatus expected = SlotStatus::free;
      if (slot.status.load(std::memory_order_relaxed) != SlotStatus::free) continue;
      if (!slot.status.compare_exchange_strong(expected, SlotStatus::claimed,
                                               std::memory_order_acquire)) {
        continue;
      }
      if (!prepare_block(slot)) {
        slot.status.store(SlotStatus::free, std::memory_order_release);
        return nullptr;
      }
      return &slot;
    }
    SlotChunk* next = chunk->next.load(std::memory_order_acquire);
    if (!next) next = append_chunk(chunk);
    if (!next) return nullptr;
    chunk = next;
  }
}

void ThreadRegistry::abandon(ThreadSlot* slot) {
  slot->status.store(SlotStatus::free, std::memory_order_release);
}

void ThreadRegistry::publish(ThreadSlot* slot) {
  slot->status.store(SlotStatus::live, std::memory_order_release);
}

void ThreadRegistry::finish(ThreadSlot* slot) {
  if (readers_.load(std::memory_order_acquire) > 0) {
    slot->status.store(SlotStatus::exited, std::memory_order_release);
    return;
  }
  slot->status.store(SlotStatus::claimed, std::memory_order_relaxed);  // hidden while folding
  if (fold_) fold_(*slot->block.load(std::memory_order_relaxed));
  slot->status.store(SlotStatus::free, std::memory_order_release);
}

void ThreadRegistry::attach_reader() {
  readers_.fetch_add(1, std::memory_order_acq_rel);
}

void ThreadRegistry::detach_reader() {
  readers_.fetch_sub(1, std::memory_order_acq_rel);
  for_each([this](ThreadSlot& slot, SlotStatus status) {
    if (status == SlotStatus::exited) retire(&slot);
  });
}

bool ThreadRegistry::retire(ThreadSlot* slot) {
  SlotStatus expected = SlotStatus::exited;
  if (!slot->status.compare_exchange_strong(expected, SlotStatus::claimed,
                                            std::memory_order_acq_rel)) {
    return false;
  }
  if (fold_) fold_(*slot->block.load(std::memory_order_relaxed));
  slot->status.store(SlotStatus::free, std::memory_order_release);
  return true;
}

void ThreadRegistry::reset_after_fork(ThreadSlot* survivor) {
  readers_.store(0, std::memory_order_relaxed);
  for (SlotChunk* chunk = &first_; chunk; chunk = chunk->next.load(std::memory_order_relaxed)) {
    for (ThreadSlot& slot : chunk->slots) {
      if (&slot != survivor) slot.status.store(SlotStatus::free, std::memory_order_relaxed);
    }
  }
}

bool ThreadRegistry::any_thread_running() const {
  for (const SlotChunk* chunk = &first_; chunk;
       chunk = chunk->next.load(std::memory_order_acquire)) {
    for (const ThreadSlot& slot : chunk->slots) {
      const SlotStatus status = slot.status.load(std::memory_order_acquire);
      if (status == SlotStatus::claimed || status == SlotStatus::live) return true;
    }
  }
  return false;
}

uint32_t ThreadRegistry::slot_count() const {
  uint32_t n = 0;
  for (const SlotChunk* chunk = &first_; chunk;
       chunk = chunk->next.load(std::memory_order_relaxed)) {
    n += SlotChunk::kSlots;
  }
  return n;
}

}  // namespace quartz::rt
