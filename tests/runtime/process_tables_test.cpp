// Process-wide tables: object records, the call graph and thread history, including
// concurrent inserts from many threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "runtime/call_graph.h"
#include "runtime/object_registry.h"
#include "runtime/thread_history.h"

namespace quartz::rt {
namespace {

TEST(ObjectRegistry, FirstInsertKeepsKindAndSite) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(8));
  ObjectRecord* r = objects.find_or_insert(0x1000, EntryKind::rwlock_write, 0xAB);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(objects.find_or_insert(0x1000, EntryKind::mutex, 0xCD), r);
  EXPECT_EQ(r->kind.load(), static_cast<uint32_t>(EntryKind::rwlock_write));
  EXPECT_EQ(r->first_site.load(), 0xABu);
  EXPECT_EQ(objects.find(0x1000), r);
  EXPECT_EQ(objects.find(0x2000), nullptr);
}

TEST(ObjectRegistry, NamedBeforeUseTakesKindAndSiteFromFirstUse) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(6));
  objects.set_name(0x1000, "early");
  EXPECT_EQ(objects.find(0x1000)->kind.load(), kKindUnset);
  ObjectRecord* r = objects.find_or_insert(0x1000, EntryKind::barrier, 0x77);
  EXPECT_EQ(r->kind.load(), static_cast<uint32_t>(EntryKind::barrier));
  EXPECT_EQ(r->first_site.load(), 0x77u);
  objects.find_or_insert(0x1000, EntryKind::mutex, 0x88);  // later uses change nothing
  EXPECT_EQ(r->kind.load(), static_cast<uint32_t>(EntryKind::barrier));
  EXPECT_EQ(r->first_site.load(), 0x77u);
}

// A walk as the runtime's would see it: its own frames, then the wrapper's caller (0xAB),
// then the program's frames above it.
uint32_t walk_through_site(uintptr_t* out, uint32_t capacity) {
  const uintptr_t chain[] = {0x11, 0x12, 0xAB, 0xAC, 0xAD};
  uint32_t n = 0;
  for (uintptr_t frame : chain) {
    if (n < capacity) out[n++] = frame;
  }
  return n;
}
uint32_t walk_without_site(uintptr_t* out, uint32_t capacity) {
  if (capacity < 2) return 0;
  out[0] = 0x11;
  out[1] = 0x12;
  return 2;
}

std::vector<uintptr_t> acquired_from(const ObjectRecord& r) {
  std::vector<uintptr_t> frames;
  for (uint32_t i = 0; i < r.frames.load(); ++i) frames.push_back(r.acquired_from[i].load());
  return frames;
}

TEST(ObjectRegistry, KeepsTheFirstAcquisitionsCallChainFromItsSiteOnce) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(6, walk_through_site));
  ObjectRecord* r = objects.find_or_insert(0x1000, EntryKind::mutex, 0xAB);
  EXPECT_EQ(acquired_from(*r), (std::vector<uintptr_t>{0xAB, 0xAC, 0xAD}));
  objects.find_or_insert(0x1000, EntryKind::mutex, 0xAC);  // a later acquisition: no walk
  EXPECT_EQ(acquired_from(*r), (std::vector<uintptr_t>{0xAB, 0xAC, 0xAD}));
  // Only named so far: the first acquisition walks.
  objects.set_name(0x2000, "named");
  EXPECT_TRUE(acquired_from(*objects.find(0x2000)).empty());
  objects.find_or_insert(0x2000, EntryKind::mutex, 0xAB);
  EXPECT_EQ(acquired_from(*objects.find(0x2000)), (std::vector<uintptr_t>{0xAB, 0xAC, 0xAD}));
}

TEST(ObjectRegistry, AWalkThatMissesTheSiteKeepsTheSiteAlone) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(6, walk_without_site));
  EXPECT_EQ(acquired_from(*objects.find_or_insert(0x1000, EntryKind::mutex, 0xAB)),
            (std::vector<uintptr_t>{0xAB}));
  ObjectRegistry unwalked;
  ASSERT_TRUE(unwalked.configure(6));
  EXPECT_EQ(acquired_from(*unwalked.find_or_insert(0x1000, EntryKind::mutex, 0xAB)),
            (std::vector<uintptr_t>{0xAB}));
}

TEST(ObjectRegistry, NamesAreTruncatedAndCopied) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(6));
  objects.set_name(0x1000, "queue lock");
  char name[kObjectNameBytes];
  ObjectRegistry::copy_name(*objects.find(0x1000), name);
  EXPECT_STREQ(name, "queue lock");
  std::string long_name(100, 'x');
  objects.set_name(0x1000, long_name.c_str());
  ObjectRegistry::copy_name(*objects.find(0x1000), name);
  EXPECT_EQ(std::strlen(name), kObjectNameBytes - 1);
}

// Four threads insert the same 1,000 objects into a table whose first level holds 16: the
// levels grow under them, and each object still has one record.
TEST(ObjectRegistry, ConcurrentInsertsGiveOneRecordPerObject) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(4));
  std::vector<std::thread> threads;
  std::vector<std::vector<ObjectRecord*>> found(4, std::vector<ObjectRecord*>(1000));
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (uintptr_t i = 0; i < 1000; ++i) {
        found[t][i] = objects.find_or_insert(0x10000 + i * 64, EntryKind::mutex, 0);
      }
    });
  }
  for (auto& t : threads) t.join();
  for (uintptr_t i = 0; i < 1000; ++i) {
    ASSERT_NE(found[0][i], nullptr);
    for (int t = 1; t < 4; ++t) EXPECT_EQ(found[t][i], found[0][i]);
    EXPECT_EQ(objects.find(0x10000 + i * 64), found[0][i]);
  }
  EXPECT_EQ(objects.dropped(), 0u);
  EXPECT_EQ(objects.count(), 1000u);
}

// The table grows level by level past its first 4 records, lists every record once in the
// order inserted, and drops (and counts) only what finds no room in its last level.
TEST(ObjectRegistry, GrowsInLevelsAndDropsOnlyPastTheLast) {
  ObjectRegistry objects;
  ASSERT_TRUE(objects.configure(2));
  EXPECT_EQ(objects.max_records(), 4u * 255u);
  std::vector<ObjectRecord*> records;
  for (uintptr_t i = 1; i <= 5000; ++i) {
    records.push_back(objects.find_or_insert(i * 64, EntryKind::mutex, 0));
  }
  uint32_t inserted = 0;
  for (uintptr_t i = 1; i <= 5000; ++i) {
    ObjectRecord* r = records[i - 1];
    if (!r) continue;
    EXPECT_EQ(objects.find(i * 64), r);
    EXPECT_EQ(objects.order_of(*r), inserted);  // dense, in the order inserted
    ++inserted;
  }
  EXPECT_GT(inserted, 4u * 255u * 3 / 4);
  EXPECT_LE(inserted, 4u * 255u);
  EXPECT_EQ(objects.count(), inserted);
  EXPECT_EQ(objects.dropped(), 5000u - inserted);
  uint32_t visited = 0;
  objects.for_each([&](const ObjectRecord& r) { EXPECT_EQ(objects.order_of(r), visited++); });
  EXPECT_EQ(visited, inserted);
}

TEST(CallGraph, ConcurrentAddsSumExactly) {
  CallGraph graph;
  ASSERT_TRUE(graph.configure(3));  // 8 edges in the first level: it grows under the threads
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int round = 0; round < 1000; ++round) {
        for (uintptr_t callee = 1; callee <= 50; ++callee) graph.add(callee % 7, callee * 16, 1);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::pair<uintptr_t, uintptr_t>, uint64_t> sums;  // duplicates are summed
  graph.for_each([&](const CallGraphRecord& r) {
    if (r.state.load() == 2) sums[{r.caller.load(), r.callee.load()}] += r.calls.load();
  });
  ASSERT_EQ(sums.size(), 50u);
  for (const auto& [edge, calls] : sums) EXPECT_EQ(calls, 4000u) << edge.second;
  EXPECT_EQ(graph.dropped(), 0u);
}

TEST(ThreadHistory, IndicesInOrderAndNames) {
  ThreadHistory history;
  EXPECT_EQ(history.next_index(), 1u);  // 0 is the main thread's
  EXPECT_EQ(history.next_index(), 2u);
  ThreadRecord* r = history.at(2);
  ASSERT_NE(r, nullptr);
  ThreadHistory::set_name(*r, "a-very-long-thread-name");
  char name[kThreadNameBytes];
  ThreadHistory::copy_name(*r, name);
  EXPECT_STREQ(name, "a-very-long-thr");
  EXPECT_EQ(history.find(2), r);
  EXPECT_EQ(history.find(5000), nullptr);  // chunk not mapped yet
  EXPECT_NE(history.at(5000), nullptr);
  history.reset_after_fork();
  EXPECT_EQ(history.next_index(), 1u);
}

}  // namespace
}  // namespace quartz::rt
