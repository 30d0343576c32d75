// The thread registry: slot life cycle, folding exactly once, reuse, a reader walking
// while threads come and go, and the fork reset.
#include "runtime/thread_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace quartz::rt {
namespace {

std::atomic<int> g_folds{0};
std::atomic<uint64_t> g_folded_calls{0};
void count_fold(ThreadBlock& block) {
  g_folds.fetch_add(1);
  for (uint32_t i = 0; i < block.edges.capacity(); ++i) {
    g_folded_calls.fetch_add(block.edges.slot(i).calls.load());
  }
}

BlockGeometry small_geometry() {
  BlockGeometry g;
  g.stack_capacity = 32;
  g.call_edges_log2 = 4;
  g.objects_log2 = 4;
  return g;
}

class ThreadRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_folds = 0;
    g_folded_calls = 0;
    registry.configure(small_geometry(), count_fold);
  }
  ThreadRegistry registry;
};

int visible(ThreadRegistry& registry) {
  int n = 0;
  registry.for_each([&](ThreadSlot&, SlotStatus) { ++n; });
  return n;
}

TEST_F(ThreadRegistryTest, ClaimedSlotsAreInvisibleUntilPublished) {
  ThreadSlot* slot = registry.claim();
  ASSERT_NE(slot, nullptr);
  ASSERT_NE(slot->block.load(), nullptr);
  EXPECT_EQ(visible(registry), 0);
  registry.publish(slot);
  EXPECT_EQ(visible(registry), 1);
}

TEST_F(ThreadRegistryTest, WithoutAReaderFinishFoldsAndFreesAtOnce) {
  ThreadSlot* slot = registry.claim();
  registry.publish(slot);
  slot->block.load()->edges.count(0, 0x10);
  registry.finish(slot);
  EXPECT_EQ(slot->status.load(), SlotStatus::free);
  EXPECT_EQ(g_folds.load(), 1);
  EXPECT_EQ(g_folded_calls.load(), 1u);
}

TEST_F(ThreadRegistryTest, WithAReaderAnEndedThreadWaitsToBeRetired) {
  registry.attach_reader();
  ThreadSlot* slot = registry.claim();
  registry.publish(slot);
  registry.finish(slot);
  EXPECT_EQ(slot->status.load(), SlotStatus::exited);
  EXPECT_EQ(g_folds.load(), 0);
  EXPECT_EQ(visible(registry), 1);  // still readable
  EXPECT_TRUE(registry.retire(slot));
  EXPECT_FALSE(registry.retire(slot));  // exactly once
  EXPECT_EQ(g_folds.load(), 1);
  registry.detach_reader();
}

// What the sampler asks to learn that the program has no thread left (its main thread
// called pthread_exit and the others ended): a thread being created counts as running.
TEST_F(ThreadRegistryTest, AThreadIsRunningFromItsClaimUntilItEnds) {
  registry.attach_reader();
  EXPECT_FALSE(registry.any_thread_running());
  ThreadSlot* slot = registry.claim();
  EXPECT_TRUE(registry.any_thread_running());
  registry.publish(slot);
  EXPECT_TRUE(registry.any_thread_running());
  registry.finish(slot);
  EXPECT_FALSE(registry.any_thread_running());  // ended, not yet retired
  registry.detach_reader();
  EXPECT_FALSE(registry.any_thread_running());
}

TEST_F(ThreadRegistryTest, DetachingRetiresWhatIsLeft) {
  registry.attach_reader();
  ThreadSlot* slot = registry.claim();
  registry.publish(slot);
  registry.finish(slot);
  registry.detach_reader();
  EXPECT_EQ(slot->status.load(), SlotStatus::free);
  EXPECT_EQ(g_folds.load(), 1);
}

TEST_F(ThreadRegistryTest, ReusedBlocksStartEmpty) {
  ThreadSlot* slot = registry.claim();
  ThreadBlock* block = slot->block.load();
  block->stack.push(0x10, kProcedureTag);
  block->edges.count(0, 0x10);
  block->index = 7;
  registry.publish(slot);
  registry.finish(slot);
  ThreadSlot* again = registry.claim();
  EXPECT_EQ(again, slot);
  EXPECT_EQ(again->block.load(), block);
  EXPECT_EQ(block->stack.depth(), 0u);
  EXPECT_EQ(block->index, 0u);
  uint64_t calls = 0;
  for (uint32_t i = 0; i < block->edges.capacity(); ++i) calls += block->edges.slot(i).calls.load();
  EXPECT_EQ(calls, 0u);
}

TEST_F(ThreadRegistryTest, GrowsByChunksWhenFull) {
  std::vector<ThreadSlot*> slots;
  for (int i = 0; i < 200; ++i) slots.push_back(registry.claim());
  EXPECT_EQ(std::set<ThreadSlot*>(slots.begin(), slots.end()).size(), 200u);
  EXPECT_EQ(registry.slot_count(), 256u);
  for (ThreadSlot* s : slots) registry.abandon(s);
  for (int i = 0; i < 200; ++i) registry.claim();
  EXPECT_EQ(registry.slot_count(), 256u);  // reused, not grown
}

TEST_F(ThreadRegistryTest, ForkResetKeepsOnlyTheSurvivor) {
  ThreadSlot* a = registry.claim();
  ThreadSlot* b = registry.claim();
  registry.publish(a);
  registry.publish(b);
  registry.attach_reader();
  registry.reset_after_fork(b);
  EXPECT_EQ(a->status.load(), SlotStatus::free);
  EXPECT_EQ(b->status.load(), SlotStatus::live);
  registry.finish(b);  // the reset also dropped the parent's reader
  EXPECT_EQ(b->status.load(), SlotStatus::free);
}

// Threads come and go while a reader walks and retires; every thread's counts are folded
// exactly once, and memory stays bounded by the number of threads alive at once.
TEST_F(ThreadRegistryTest, ReaderWalksWhileThreadsChurn) {
  registry.attach_reader();
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> seen{0};
  std::thread reader([&] {
    while (!stop.load()) {
      registry.for_each([&](ThreadSlot& slot, SlotStatus status) {
        ThreadBlock* block = slot.block.load(std::memory_order_acquire);
        seen.fetch_add(block->stack.depth() + 1, std::memory_order_relaxed);
        if (status == SlotStatus::exited) registry.retire(&slot);
      });
    }
  });
  constexpr int kWorkers = 4, kRounds = 2000;
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      for (int r = 0; r < kRounds; ++r) {
        ThreadSlot* slot = registry.claim();
        ASSERT_NE(slot, nullptr);
        ThreadBlock* block = slot->block.load();
        registry.publish(slot);
        block->stack.push(0x10, kProcedureTag);
        block->edges.count(0, 0x10);
        block->stack.pop_procedure(0x10);
        registry.finish(slot);
      }
    });
  }
  for (auto& w : workers) w.join();
  stop = true;
  reader.join();
  registry.detach_reader();
  EXPECT_EQ(g_folds.load(), kWorkers * kRounds);
  EXPECT_EQ(g_folded_calls.load(), uint64_t{kWorkers} * kRounds);
  // How many slots exist depends on how often the reader ran (the e2e churn test bounds
  // memory for sequential threads); here it is only never more than one per thread.
  EXPECT_LE(registry.slot_count(), uint32_t{kWorkers} * kRounds + SlotChunk::kSlots);
  EXPECT_GT(seen.load(), 0u);
}

}  // namespace
}  // namespace quartz::rt
