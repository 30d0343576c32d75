// Per-thread call-edge and object counters: exact counts, probing, and full tables.
#include "runtime/thread_counters.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace quartz::rt {
namespace {

TEST(CallEdgeTable, CountsEveryCallPerEdge) {
  std::vector<CallEdgeSlot> slots(1 << 6);
  CallEdgeTable table;
  table.reset(slots.data(), 6);
  std::map<std::pair<uintptr_t, uintptr_t>, uint64_t> expected;
  for (uintptr_t caller = 0; caller < 5; ++caller) {
    for (uintptr_t callee = 0x1000; callee < 0x1000 + 16 * 4; callee += 16) {
      for (uintptr_t n = 0; n <= caller; ++n) {
        ASSERT_NE(table.count(caller * 64, callee), nullptr);
        ++expected[{caller * 64, callee}];
      }
    }
  }
  std::map<std::pair<uintptr_t, uintptr_t>, uint64_t> counted;
  for (uint32_t i = 0; i < table.capacity(); ++i) {
    const CallEdgeSlot& s = table.slot(i);
    if (s.callee.load()) counted[{s.caller.load(), s.callee.load()}] += s.calls.load();
  }
  EXPECT_EQ(counted, expected);
  // Readers visit the claimed slots only: each edge once, in the order first counted.
  std::map<std::pair<uintptr_t, uintptr_t>, uint64_t> visited;
  std::vector<std::pair<uintptr_t, uintptr_t>> order;
  table.for_each_claimed([&](const CallEdgeSlot& s) {
    visited[{s.caller.load(), s.callee.load()}] += s.calls.load();
    order.emplace_back(s.caller.load(), s.callee.load());
  });
  EXPECT_EQ(visited, expected);
  ASSERT_EQ(order.size(), expected.size());
  EXPECT_EQ(order.front(), std::make_pair(uintptr_t{0}, uintptr_t{0x1000}));
  EXPECT_EQ(order.back(), std::make_pair(uintptr_t{4 * 64}, uintptr_t{0x1000 + 16 * 3}));
}

TEST(CallEdgeTable, FullTableRefusesNewEdgesButKeepsCounting) {
  std::vector<CallEdgeSlot> slots(1 << 4);
  CallEdgeTable table;
  table.reset(slots.data(), 4);
  int refused = 0;
  for (uintptr_t callee = 16; callee <= 16 * 64; callee += 16)
    refused += table.count(0, callee) == nullptr;
  EXPECT_GE(refused, 64 - 16);
  uint32_t claimed = 0;
  table.for_each_claimed([&](const CallEdgeSlot& s) { claimed += s.callee.load() != 0; });
  EXPECT_EQ(claimed, 64u - refused);
  // An edge that found room keeps counting.
  for (uint32_t i = 0; i < table.capacity(); ++i) {
    const CallEdgeSlot& s = table.slot(i);
    if (!s.callee.load()) continue;
    const uint64_t before = s.calls.load();
    EXPECT_EQ(table.count(s.caller.load(), s.callee.load()), &s);
    EXPECT_EQ(s.calls.load(), before + 1);
    break;
  }
}

TEST(CallEdgeTable, ClearKeepsKeysAndZeroesCounts) {
  std::vector<CallEdgeSlot> slots(1 << 4);
  CallEdgeTable table;
  table.reset(slots.data(), 4);
  table.count(1, 2);
  table.clear();
  uint64_t total = 0;
  for (uint32_t i = 0; i < table.capacity(); ++i) total += table.slot(i).calls.load();
  EXPECT_EQ(total, 0u);
  table.count(1, 2);
  for (uint32_t i = 0; i < table.capacity(); ++i) total += table.slot(i).calls.load();
  EXPECT_EQ(total, 1u);
  uint32_t listed = 0;  // the key stayed: listed once, not again when counted anew
  table.for_each_claimed([&](const CallEdgeSlot&) { ++listed; });
  EXPECT_EQ(listed, 1u);
}

// Zeroed memory for a table of 2^log2 slots and its claimed list.
std::vector<ObjectCountSlot> object_table_memory(uint32_t log2) {
  return std::vector<ObjectCountSlot>(
      (ObjectCountTable::bytes_for(log2) + sizeof(ObjectCountSlot) - 1) / sizeof(ObjectCountSlot));
}

TEST(ObjectCountTable, FindInsertsOnceThenFinds) {
  std::vector<ObjectCountSlot> slots = object_table_memory(4);
  ObjectCountTable table;
  table.reset(slots.data(), 4);
  bool inserted = false;
  ObjectCountSlot* a = table.find(0x5000, &inserted);
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(inserted);
  EXPECT_EQ(table.find(0x5000, &inserted), a);
  EXPECT_FALSE(inserted);
  // A full neighbourhood gives null rather than a wrong slot, and nothing inserted.
  int nulls = 0;
  for (uintptr_t address = 0x100; address < 0x100 + 64 * 64; address += 64) {
    inserted = true;
    if (table.find(address, &inserted) == nullptr) {
      ++nulls;
      EXPECT_FALSE(inserted) << address;
    }
  }
  EXPECT_GT(nulls, 0);
  EXPECT_EQ(table.find(0x5000, &inserted), a);
}

// A reader visits the objects the thread used, each once, in the order it first used them,
// and clear() zeroes their counts and keeps them listed.
TEST(ObjectCountTable, ListsTheObjectsClaimedOnce) {
  std::vector<ObjectCountSlot> slots = object_table_memory(8);
  ObjectCountTable table;
  table.reset(slots.data(), 8);
  const std::vector<uintptr_t> used = {0x9000, 0x1000, 0x5040, 0x2000};
  bool inserted;
  for (int round = 0; round < 3; ++round) {
    for (uintptr_t address : used) table.find(address, &inserted)->acquisitions++;
  }
  std::vector<uintptr_t> listed;
  table.for_each_claimed([&](const ObjectCountSlot& s) {
    listed.push_back(s.address.load());
    EXPECT_EQ(s.acquisitions.load(), 3u);
  });
  EXPECT_EQ(listed, used);
  table.clear();
  listed.clear();
  table.for_each_claimed([&](const ObjectCountSlot& s) {
    listed.push_back(s.address.load());
    EXPECT_EQ(s.acquisitions.load(), 0u);
  });
  EXPECT_EQ(listed, used);
}

}  // namespace
}  // namespace quartz::rt
