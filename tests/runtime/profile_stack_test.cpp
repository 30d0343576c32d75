// The profile stack: folding, overflow, resynchronisation, out-of-order releases,
// inheritance, and the lock-free reader against a concurrent writer.
#include "runtime/profile_stack.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace quartz::rt {
namespace {

constexpr EntryTag kHeld = make_tag(EntryKind::mutex, EntryRole::holding);
constexpr EntryTag kWaiting = make_tag(EntryKind::mutex, EntryRole::waiting);

class Stack {
 public:
  explicit Stack(uint32_t capacity) : entries_(capacity) { stack.reset(entries_.data(), capacity); }

  // The stored addresses, bottom first.
  std::vector<uintptr_t> addresses() const {
    std::vector<EntryValue> copy(stack.capacity());
    uint32_t depth = 0, true_depth = 0;
    EXPECT_TRUE(stack.read(copy.data(), stack.capacity(), &depth, &true_depth));
    std::vector<uintptr_t> out;
    for (uint32_t i = 0; i < depth; ++i) out.push_back(copy[i].address);
    return out;
  }
  EntryTag tag_at(uint32_t i) const {
    std::vector<EntryValue> copy(stack.capacity());
    uint32_t depth = 0, true_depth = 0;
    EXPECT_TRUE(stack.read(copy.data(), stack.capacity(), &depth, &true_depth));
    return copy.at(i).tag;
  }

  ProfileStack stack;

 private:
  std::vector<StackEntry> entries_;
};

using Addresses = std::vector<uintptr_t>;

TEST(ProfileStack, PushAndPopInOrder) {
  Stack s(8);
  EXPECT_EQ(s.stack.push(10, kProcedureTag), 0u);
  EXPECT_EQ(s.stack.push(20, kProcedureTag), 10u);  // returns the caller
  EXPECT_EQ(s.stack.push(30, kProcedureTag), 20u);
  EXPECT_EQ(s.addresses(), (Addresses{10, 20, 30}));
  s.stack.pop_procedure(30);
  s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10}));
  s.stack.pop_procedure(10);
  EXPECT_EQ(s.stack.depth(), 0u);
  EXPECT_EQ(s.stack.mismatches(), 0u);
}

TEST(ProfileStack, ImmediateRecursionFoldsIntoOneEntry) {
  Stack s(4);
  s.stack.push(10, kProcedureTag);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(s.stack.push(20, kProcedureTag), 20u - (i == 0) * 10);
  EXPECT_EQ(s.addresses(), (Addresses{10, 20}));
  for (int i = 0; i < 999; ++i) s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10, 20}));
  s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10}));
  EXPECT_EQ(s.stack.overflows(), 0u);
}

TEST(ProfileStack, OverflowIsCountedAndPopsStillMatch) {
  Stack s(4);
  for (uintptr_t f = 1; f <= 10; ++f) s.stack.push(f, kProcedureTag);  // mutual recursion
  EXPECT_EQ(s.stack.depth(), 10u);
  EXPECT_EQ(s.stack.overflows(), 6u);
  EXPECT_EQ(s.addresses(), (Addresses{1, 2, 3, 4}));
  for (uintptr_t f = 10; f >= 5; --f) s.stack.pop_procedure(f);
  EXPECT_EQ(s.addresses(), (Addresses{1, 2, 3, 4}));
  for (uintptr_t f = 4; f >= 1; --f) s.stack.pop_procedure(f);
  EXPECT_EQ(s.stack.depth(), 0u);
  EXPECT_EQ(s.stack.mismatches(), 0u);
}

TEST(ProfileStack, ExitBelowTopResynchronisesAfterSkippedExits) {
  // longjmp from 40 back into 20: the exits of 40 and 30 never run.
  Stack s(8);
  for (uintptr_t f : {10, 20, 30, 40}) s.stack.push(f, kProcedureTag);
  s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10}));
  EXPECT_EQ(s.stack.mismatches(), 0u);
}

TEST(ProfileStack, ResynchronisationKeepsLocksStillHeld) {
  // A callee took a lock and returned without releasing it (released by the caller later).
  Stack s(8);
  s.stack.push(10, kProcedureTag);
  s.stack.push(20, kProcedureTag);
  s.stack.push(0x1000, kHeld);
  s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10, 0x1000}));
  EXPECT_TRUE(s.stack.pop_object(0x1000));
  EXPECT_EQ(s.addresses(), (Addresses{10}));
}

TEST(ProfileStack, ResynchronisationDropsWaitsLeftBehind) {
  Stack s(8);
  s.stack.push(10, kProcedureTag);
  s.stack.push(20, kProcedureTag);
  s.stack.push(0x1000, kWaiting);
  s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10}));
}

TEST(ProfileStack, ResynchronisationIntoFoldedRecursionKeepsOuterActivations) {
  Stack s(8);
  s.stack.push(10, kProcedureTag);
  s.stack.push(20, kProcedureTag);
  s.stack.push(20, kProcedureTag);  // folded: repeat 1
  s.stack.push(30, kProcedureTag);
  s.stack.pop_procedure(20);  // longjmp from 30 into the inner 20, which returns
  EXPECT_EQ(s.addresses(), (Addresses{10, 20}));
  s.stack.pop_procedure(20);
  EXPECT_EQ(s.addresses(), (Addresses{10}));
}

TEST(ProfileStack, UnmatchedExitIsCountedAndChangesNothing) {
  Stack s(8);
  s.stack.push(10, kProcedureTag);
  s.stack.pop_procedure(99);
  EXPECT_EQ(s.addresses(), (Addresses{10}));
  EXPECT_EQ(s.stack.mismatches(), 1u);
  s.stack.pop_procedure(10);
  s.stack.pop_procedure(10);  // one exit too many
  EXPECT_EQ(s.stack.depth(), 0u);
  EXPECT_EQ(s.stack.mismatches(), 2u);
}

TEST(ProfileStack, HandOverHandReleaseRemovesFromTheMiddle) {
  Stack s(8);
  s.stack.push(10, kProcedureTag);
  s.stack.push(0xA, kHeld);
  s.stack.push(0xB, kHeld);
  EXPECT_TRUE(s.stack.pop_object(0xA));
  EXPECT_EQ(s.addresses(), (Addresses{10, 0xB}));
  EXPECT_TRUE(s.stack.pop_object(0xB));
  EXPECT_FALSE(s.stack.pop_object(0xB));  // not held: nothing to pop, not an unmatched exit
  EXPECT_EQ(s.addresses(), (Addresses{10}));
  EXPECT_EQ(s.stack.mismatches(), 0u);
}

TEST(ProfileStack, RecursiveLockFoldsAndUnfolds) {
  Stack s(8);
  s.stack.push(0xA, kHeld);
  s.stack.push(0xA, kHeld);
  EXPECT_EQ(s.addresses(), (Addresses{0xA}));
  EXPECT_TRUE(s.stack.pop_object(0xA));
  EXPECT_EQ(s.addresses(), (Addresses{0xA}));
  EXPECT_TRUE(s.stack.pop_object(0xA));
  EXPECT_EQ(s.stack.depth(), 0u);
}

TEST(ProfileStack, ProcedureAndObjectAtTheSameAddressStayDistinct) {
  Stack s(8);
  s.stack.push(0xA, kProcedureTag);
  s.stack.push(0xA, kHeld);  // not folded: a different kind of entry
  EXPECT_EQ(s.addresses(), (Addresses{0xA, 0xA}));
  EXPECT_TRUE(s.stack.pop_object(0xA));
  s.stack.pop_procedure(0xA);
  EXPECT_EQ(s.stack.depth(), 0u);
}

TEST(ProfileStack, SetRoleChangesTheTopMostEntryForTheObject) {
  Stack s(8);
  s.stack.push(0xA, kWaiting);
  ASSERT_TRUE(s.stack.set_role(0xA, EntryRole::holding));
  EXPECT_EQ(s.tag_at(0), kHeld);
  EXPECT_FALSE(s.stack.set_role(0xB, EntryRole::holding));
}

TEST(ProfileStack, InheritCopiesProceduresOnlyAndNeverPopsThem) {
  Stack parent(8), child(8);
  parent.stack.push(10, kProcedureTag);
  parent.stack.push(0xA, kHeld);  // a lock held by the creator is not the child's
  parent.stack.push(20, kProcedureTag);
  child.stack.inherit(parent.stack);
  EXPECT_EQ(child.addresses(), (Addresses{10, 20}));
  EXPECT_EQ(child.tag_at(0), kInheritedTag);
  EXPECT_EQ(child.tag_at(1), kInheritedTag);
  child.stack.push(30, kProcedureTag);
  child.stack.pop_procedure(30);
  child.stack.pop_procedure(20);  // an exit the child never entered
  EXPECT_EQ(child.addresses(), (Addresses{10, 20}));
  EXPECT_EQ(child.stack.mismatches(), 1u);
  // The child's own first call may repeat the creator's top procedure.
  child.stack.push(20, kProcedureTag);
  child.stack.pop_procedure(20);
  EXPECT_EQ(child.addresses(), (Addresses{10, 20}));
  EXPECT_EQ(child.stack.mismatches(), 1u);
}

TEST(ProfileStack, RebaseReplacesTheInheritedEntriesWithAnotherThreadsProcedures) {
  Stack master(8), worker(8);
  master.stack.push(10, kProcedureTag);
  master.stack.push(0xA, kHeld);  // the master's locks stay the master's
  master.stack.push(40, kProcedureTag);
  uintptr_t frames[8];
  ASSERT_EQ(master.stack.copy_procedures(frames, 8), 2u);
  EXPECT_EQ(frames[0], 10u);
  EXPECT_EQ(frames[1], 40u);
  EXPECT_EQ(master.stack.copy_procedures(frames, 1), 1u);  // the bottom first
  worker.stack.push(20, kInheritedTag);  // what it inherited when the pool was made
  worker.stack.push(30, kInheritedTag);
  master.stack.copy_procedures(frames, 8);
  worker.stack.rebase(frames, 2);
  EXPECT_EQ(worker.addresses(), (Addresses{10, 40}));
  EXPECT_EQ(worker.tag_at(0), kInheritedTag);
  EXPECT_EQ(worker.tag_at(1), kInheritedTag);
  worker.stack.push(50, kProcedureTag);
  worker.stack.pop_procedure(50);
  worker.stack.pop_procedure(40);  // never popped
  EXPECT_EQ(worker.addresses(), (Addresses{10, 40}));
}

TEST(ProfileStack, ClearEmptiesForANewOwner) {
  Stack s(8);
  s.stack.push(10, kProcedureTag);
  for (int i = 0; i < 10; ++i) s.stack.push(static_cast<uintptr_t>(100 + i), kProcedureTag);
  s.stack.pop_procedure(12345);
  s.stack.clear();
  EXPECT_EQ(s.stack.depth(), 0u);
  EXPECT_EQ(s.stack.overflows(), 0u);
  EXPECT_EQ(s.stack.mismatches(), 0u);
}

// The writer pushes strictly increasing addresses (procedures and held locks), pops,
// resynchronises (which compacts held locks down) and releases locks from the middle
// (which shifts entries down), so every state it publishes is strictly increasing. A
// copy torn by a concurrent in-place rewrite repeats an entry, so a reader must never
// return a copy that is not strictly increasing.
TEST(ProfileStack, ConcurrentReaderNeverReturnsATornCopy) {
  constexpr uint32_t kCapacity = 48;
  Stack s(kCapacity);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> good{0}, torn{0}, bad{0};
  std::thread reader([&] {
    std::vector<EntryValue> copy(kCapacity);
    while (!stop.load(std::memory_order_relaxed)) {
      uint32_t depth = 0, true_depth = 0;
      if (!s.stack.read(copy.data(), kCapacity, &depth, &true_depth)) {
        torn.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      for (uint32_t i = 1; i < depth; ++i) {
        if (copy[i].address <= copy[i - 1].address) bad.fetch_add(1, std::memory_order_relaxed);
      }
      good.fetch_add(1, std::memory_order_relaxed);
    }
  });
  struct Shadow {
    uintptr_t address;
    bool lock;
  };
  std::vector<Shadow> shadow;  // what the writer believes is on the stack
  uintptr_t next = 1;
  uint64_t random = 12345;
  for (int round = 0; round < 3'000'000; ++round) {
    random = random * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t choice = static_cast<uint32_t>(random >> 59);  // 0..31
    const size_t depth = shadow.size();
    if (depth + 1 < kCapacity && choice < 14) {
      const bool lock = choice < 4;
      s.stack.push(next, lock ? kHeld : kProcedureTag);
      shadow.push_back({next++, lock});
    } else if (depth >= 2 && choice < 18) {
      // Release a lock wherever it is.
      size_t i = (random >> 8) % depth;
      while (i < depth && !shadow[i].lock) ++i;
      if (i == depth) continue;
      ASSERT_TRUE(s.stack.pop_object(shadow[i].address));
      shadow.erase(shadow.begin() + static_cast<long>(i));
    } else if (depth >= 2 && choice < 22) {
      // The exit of a lower procedure (longjmp): drops procedures above, keeps locks.
      size_t i = (random >> 8) % depth;
      while (i < depth && shadow[i].lock) ++i;
      if (i == depth) continue;
      s.stack.pop_procedure(shadow[i].address);
      std::vector<Shadow> kept(shadow.begin(), shadow.begin() + static_cast<long>(i));
      for (size_t j = i + 1; j < depth; ++j) {
        if (shadow[j].lock) kept.push_back(shadow[j]);
      }
      shadow = kept;
    } else if (depth >= 1) {
      if (shadow.back().lock) {
        s.stack.pop_object(shadow.back().address);
      } else {
        s.stack.pop_procedure(shadow.back().address);
      }
      shadow.pop_back();
    }
    if (round % 4096 == 0) {
      std::vector<uintptr_t> expected;
      for (const Shadow& e : shadow) expected.push_back(e.address);
      ASSERT_EQ(s.addresses(), expected);
    }
  }
  stop = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_GT(good.load(), 0u);
  EXPECT_EQ(s.stack.mismatches(), 0u);
}

}  // namespace
}  // namespace quartz::rt
