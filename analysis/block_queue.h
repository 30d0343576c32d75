// Items appended at positions that only grow, in blocks of 2^Log2 at positions fixed from
// the start: an item is found by a shift and a mask and appending never moves one (a
// vector's growth copied its items and touched twice its peak; a std::deque's blocks of a
// few items made an allocation every few, millions on a big trace). Blocks come from a
// pool that queues share and go back to it once every reader has passed them: the pool's
// slabs are touched once, at the queues' joint peak.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace quartz::analysis {

template <typename T, unsigned Log2>
class BlockPool {
 public:
  static constexpr size_t kBlockItems = size_t{1} << Log2;
  static_assert(std::is_trivially_destructible_v<T>, "blocks are dropped with their slab");

  T* take() {
    if (free_.empty()) grow();
    T* block = free_.back();
    free_.pop_back();
    return block;
  }
  void give(T* block) { free_.push_back(block); }

 private:
  // Slabs of 32 MiB, which the tools' operator new gives to huge pages
  // (profile/huge_pages.cpp), touched a block at a time: on a virtual machine a 4 KiB page
  // fault cost 10 us, and blocks of 64 KiB from the heap faulted half as much again as the
  // vectors they replaced.
  static constexpr size_t kBlockBytes = sizeof(T) * kBlockItems;
  static constexpr size_t kSlabBlocks = std::max<size_t>(1, (size_t{32} << 20) / kBlockBytes);

  void grow() {
    if (next_ == kSlabBlocks) {
      slabs_.push_back(std::make_unique_for_overwrite<std::byte[]>(kSlabBlocks * kBlockBytes));
      next_ = 0;
    }
    T* block = reinterpret_cast<T*>(slabs_.back().get() + next_++ * kBlockBytes);
    std::uninitialized_default_construct_n(block, kBlockItems);
    free_.push_back(block);
  }

  std::vector<std::unique_ptr<std::byte[]>> slabs_;
  size_t next_ = kSlabBlocks;  // the last slab's first block never handed out
  std::vector<T*> free_;
};

template <typename T, unsigned Log2>
class BlockQueue {
 public:
  using Pool = BlockPool<T, Log2>;

  BlockQueue() = default;
  BlockQueue(const BlockQueue&) = delete;  // two copies would give their blocks back twice
  BlockQueue& operator=(const BlockQueue&) = delete;
  BlockQueue(BlockQueue&&) noexcept = default;
  BlockQueue& operator=(BlockQueue&&) noexcept = default;

  uint64_t begin() const { return base_; }  // the first item kept
  uint64_t end() const { return end_; }
  uint64_t size() const { return end_ - base_; }
  const T& at(uint64_t position) const { return blocks_[position >> Log2][position & kMask]; }
  T& at(uint64_t position) { return blocks_[position >> Log2][position & kMask]; }
  T& back() { return at(end_ - 1); }

  void push(const T& item, Pool& pool) {
    if ((end_ & kMask) == 0) blocks_.push_back(pool.take());
    blocks_.back()[end_ & kMask] = item;
    ++end_;
  }
  // Drops the items before `position`, giving the blocks wholly before it back to `pool`.
  void trim(uint64_t position, Pool& pool) {
    position = std::min(position, end_);
    for (uint64_t b = base_ >> Log2; b < (position >> Log2); ++b) pool.give(blocks_[b]);
    base_ = std::max(base_, position);
  }

 private:
  static constexpr uint64_t kMask = (uint64_t{1} << Log2) - 1;

  std::vector<T*> blocks_;  // block b: positions from b << Log2 (the pool's)
  uint64_t base_ = 0, end_ = 0;
};

}  // namespace quartz::analysis
