// The thread state machine of the synchronization wrappers, driven with a fake clock:
// what goes on the stack, which state the thread is in, and what is counted.
#include "runtime/sync_events.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/mapped_memory.h"

namespace quartz::rt {
namespace {

class SyncEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BlockGeometry g;
    g.stack_capacity = 16;
    g.call_edges_log2 = 4;
    g.objects_log2 = 4;
    block = ThreadBlock::create_in(support::map_zeroed(ThreadBlock::bytes_for(g)), g);
    ASSERT_TRUE(objects.configure(8));
  }
  std::vector<EntryValue> stack() const {
    std::vector<EntryValue> copy(16);
    uint32_t depth = 0, true_depth = 0;
    EXPECT_TRUE(block->stack.read(copy.data(), 16, &depth, &true_depth));
    copy.resize(depth);
    return copy;
  }
  const ObjectCountSlot& counts(uintptr_t object) {
    bool inserted;
    return *block->objects.find(object, &inserted);
  }

  ThreadBlock* block = nullptr;
  ObjectRegistry objects;
  uint64_t clock_ns = 1'000'000;  // the fake clock, in ticks
};

TEST_F(SyncEventsTest, UncontendedAcquireHoldsWithoutWaiting) {
  on_acquired(*block, objects, 0xA, EntryKind::mutex, 0x55);
  ASSERT_EQ(stack().size(), 1u);
  EXPECT_EQ(stack()[0].tag, make_tag(EntryKind::mutex, EntryRole::holding));
  EXPECT_EQ(block->state.load(), ThreadState::busy);
  EXPECT_EQ(counts(0xA).acquisitions.load(), 1u);
  EXPECT_EQ(counts(0xA).contended.load(), 0u);
  ASSERT_NE(objects.find(0xA), nullptr);
  EXPECT_EQ(objects.find(0xA)->first_site.load(), 0x55u);
  on_released(*block, 0xA);
  EXPECT_TRUE(stack().empty());
}

TEST_F(SyncEventsTest, ContendedAcquireBlocksThenHolds) {
  Wait w = begin_wait(*block, 0xA, EntryKind::mutex, ThreadState::blocked, clock_ns);
  EXPECT_EQ(block->state.load(), ThreadState::blocked);
  EXPECT_EQ(stack()[0].tag, make_tag(EntryKind::mutex, EntryRole::waiting));
  clock_ns += 2500;
  end_wait_acquired(*block, objects, w, 0, clock_ns);
  EXPECT_EQ(block->state.load(), ThreadState::busy);
  EXPECT_EQ(stack()[0].tag, make_tag(EntryKind::mutex, EntryRole::holding));
  EXPECT_EQ(block->blocked_ticks.load(), 2500u);
  EXPECT_EQ(counts(0xA).acquisitions.load(), 1u);
  EXPECT_EQ(counts(0xA).contended.load(), 1u);
  EXPECT_EQ(counts(0xA).wait_ticks.load(), 2500u);
}

TEST_F(SyncEventsTest, SpinWaitCountsAsSpinning) {
  Wait w = begin_wait(*block, 0xB, EntryKind::spinlock, ThreadState::spinning, clock_ns);
  EXPECT_EQ(block->state.load(), ThreadState::spinning);
  clock_ns += 700;
  end_wait_acquired(*block, objects, w, 0, clock_ns);
  EXPECT_EQ(block->spinning_ticks.load(), 700u);
  EXPECT_EQ(block->blocked_ticks.load(), 0u);
}

TEST_F(SyncEventsTest, TimedOutWaitLeavesNothingAndCountsNoAcquisition) {
  Wait w = begin_wait(*block, 0xA, EntryKind::mutex, ThreadState::blocked, clock_ns);
  clock_ns += 100;
  end_wait(*block, objects, w, WaitOutcome::failed, 0, clock_ns);
  EXPECT_TRUE(stack().empty());
  EXPECT_EQ(block->state.load(), ThreadState::busy);
  EXPECT_EQ(block->blocked_ticks.load(), 100u);
  bool inserted;
  ObjectCountSlot* slot = block->objects.find(0xA, &inserted);
  EXPECT_TRUE(inserted || slot->acquisitions.load() == 0);
}

TEST_F(SyncEventsTest, ConditionWaitReleasesTheMutexUnderTheCondition) {
  on_acquired(*block, objects, 0xA, EntryKind::mutex, 0);
  Wait w = begin_condition_wait(*block, 0xC, 0xA, clock_ns);
  auto s = stack();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].tag, make_tag(EntryKind::mutex, EntryRole::released));
  EXPECT_EQ(s[1].address, 0xCu);
  EXPECT_EQ(s[1].tag, make_tag(EntryKind::condition, EntryRole::waiting));
  EXPECT_EQ(block->state.load(), ThreadState::blocked);
  clock_ns += 50;
  end_condition_wait(*block, objects, w, 0xA, WaitOutcome::waited, 0, clock_ns);
  s = stack();
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].tag, make_tag(EntryKind::mutex, EntryRole::holding));
  EXPECT_EQ(counts(0xC).acquisitions.load(), 1u);
  EXPECT_EQ(block->state.load(), ThreadState::busy);
}

TEST_F(SyncEventsTest, LastArrivalAtABarrierPassesUncontended) {
  Wait w = begin_wait(*block, 0xD, EntryKind::barrier, ThreadState::blocked, clock_ns);
  end_wait(*block, objects, w, WaitOutcome::passed, 0, clock_ns + 5);
  EXPECT_EQ(counts(0xD).acquisitions.load(), 1u);
  EXPECT_EQ(counts(0xD).contended.load(), 0u);
  EXPECT_EQ(counts(0xD).wait_ticks.load(), 0u);
}

TEST_F(SyncEventsTest, WaitInsideASpinRegionReturnsToSpinning) {
  Wait region = begin_wait(*block, 0xE, EntryKind::spin_region, ThreadState::spinning, clock_ns);
  Wait inner = begin_wait(*block, 0xA, EntryKind::mutex, ThreadState::blocked, clock_ns);
  end_wait_acquired(*block, objects, inner, 0, clock_ns + 10);
  EXPECT_EQ(block->state.load(), ThreadState::spinning);
  on_released(*block, 0xA);
  end_wait(*block, objects, region, WaitOutcome::waited, 0, clock_ns + 30);
  EXPECT_EQ(block->state.load(), ThreadState::busy);
  EXPECT_TRUE(stack().empty());
}

TEST_F(SyncEventsTest, FullThreadTableSpillsToTheSharedRecord) {
  // Fill the thread's 16-slot table, then keep acquiring new objects.
  for (uintptr_t i = 1; i <= 64; ++i) {
    on_acquired(*block, objects, i * 4096, EntryKind::mutex, 0);
    on_released(*block, i * 4096);
  }
  EXPECT_GT(block->spilled_events.load(), 0u);
  uint64_t total = 0;
  for (uintptr_t i = 1; i <= 64; ++i) {
    bool inserted = false;
    ObjectCountSlot* slot = block->objects.find(i * 4096, &inserted);
    if (slot && !inserted) total += slot->acquisitions.load();
    if (!slot || inserted) total += objects.find(i * 4096)->acquisitions.load();
  }
  EXPECT_EQ(total, 64u);
}

}  // namespace
}  // namespace quartz::rt
