// Blocks of items at fixed positions, shared out by a pool (analysis/block_queue.h).
#include "analysis/block_queue.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace quartz::analysis {
namespace {

using Queue = BlockQueue<uint64_t, 2>;  // blocks of 4

// Each queue reads back what it was given at every position it keeps, while the other
// takes the blocks it dropped: the pool hands a dropped block out again, not a new one.
TEST(BlockQueue, QueuesSharingAPoolKeepTheirItemsAndReuseDroppedBlocks) {
  Queue::Pool pool;
  Queue a, b;
  for (uint64_t i = 0; i < 10; ++i) a.push(100 + i, pool);
  const uint64_t* first_block = &a.at(0);
  a.trim(6, pool);  // positions 0..7 form blocks 0 and 1: only block 0 is wholly passed
  EXPECT_EQ(a.begin(), 6u);
  EXPECT_EQ(a.size(), 4u);
  for (uint64_t i = 0; i < 4; ++i) b.push(200 + i, pool);
  EXPECT_EQ(&b.at(0), first_block);
  for (uint64_t i = 10; i < 20; ++i) a.push(100 + i, pool);
  for (uint64_t i = 6; i < 20; ++i) EXPECT_EQ(a.at(i), 100 + i);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(b.at(i), 200 + i);
  a.trim(100, pool);  // past its end: everything goes, and it goes on from there
  EXPECT_EQ(a.begin(), 20u);
  a.push(7, pool);
  EXPECT_EQ(a.back(), 7u);
  EXPECT_EQ(a.end(), 21u);
}

}  // namespace
}  // namespace quartz::analysis
