// TableChanges (the amendments' view of the sampler's tables): what a window's attribution
// writes is listed once, and a provisional attribution leaves the tables as they were,
// byte for byte, against a copy taken before (ProfileTables::assign), with the records it
// touched listed again for the next amendment.
#include "sampler/table_changes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "sampler/attribution.h"

namespace quartz::sampler {
namespace {

constexpr uint64_t kMainAt = 0x100, kWorkAt = 0x200, kLockAt = 0x9000;

class TableChangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tables.init(RecordShape{2, 9}, ProfileTables::Limits{1024, 256, 256, 256}));
    ASSERT_TRUE(copy.init(RecordShape{2, 9}, ProfileTables::Limits{1024, 256, 256, 256}));
    ASSERT_TRUE(window.init(64, 1024, 64));
    ASSERT_TRUE(changes.init(tables));
    tables.track(&changes);
    main_ctx = tables.context(kNone, kMainAt, capture::kProcedure);
    work = tables.context(main_ctx, kWorkAt, capture::kProcedure);
    lock = tables.context(work, kLockAt, capture::kMutex);
    config.processors = 2;
  }
  void snapshot(uint32_t thread_context, uint32_t other_context) {
    ASSERT_TRUE(window.begin_snapshot(2'000'000, false));
    const uint32_t contexts[2] = {thread_context, other_context};
    for (uint32_t t = 0; t < 2; ++t) {
      uint32_t position = 0;
      bool created;
      ASSERT_NE(window.thread(t, &position, &created), nullptr);
      ThreadSample sample{t, position, contexts[t], capture::kBusy, kRoleNone, 0, 1.0f, 1.0f};
      if (contexts[t] == lock) sample.top_role = kRoleHolding;
      ASSERT_TRUE(window.add_sample(sample));
    }
  }
  std::set<uint32_t> listed(uint32_t kind) const {
    std::set<uint32_t> out;
    const auto& changed = changes.changed(kind);
    for (size_t i = 0; i < changed.size(); ++i) EXPECT_TRUE(out.insert(changed[i]).second);
    return out;
  }
  // Every record of `a` and `b` the same, byte for byte (read through the const accessors,
  // which note nothing).
  static void expect_same(const ProfileTables& a, const ProfileTables& b) {
    const RecordShape& shape = a.shape();
    const size_t full = shape.full_size() * sizeof(double);
    ASSERT_EQ(a.context_count(), b.context_count());
    for (uint32_t i = 0; i < a.context_count(); ++i) {
      EXPECT_EQ(
          memcmp(a.context_record(i), b.context_record(i), shape.context_size() * sizeof(double)),
          0)
          << "context " << i;
    }
    for (uint32_t i = 0; i < a.procedure_count(); ++i) {
      EXPECT_EQ(memcmp(a.procedure_record(i), b.procedure_record(i), full), 0) << "procedure " << i;
      EXPECT_EQ(a.procedure_entry(i).stamp, b.procedure_entry(i).stamp);
    }
    for (uint32_t i = 0; i < a.object_count(); ++i) {
      EXPECT_EQ(memcmp(a.object_record(i), b.object_record(i), full), 0) << "object " << i;
      EXPECT_EQ(memcmp(&a.object_entry(i), &b.object_entry(i), sizeof(ObjectEntry)), 0);
    }
    for (uint32_t i = 0; i < 2; ++i) {
      EXPECT_EQ(memcmp(a.thread_record(i), b.thread_record(i), full), 0) << "thread " << i;
    }
    EXPECT_EQ(memcmp(a.program_record(), b.program_record(), full), 0);
    EXPECT_EQ(a.runnable_bins_used(), b.runnable_bins_used());
  }

  ProfileTables tables, copy;
  TableChanges changes;
  Window window;
  AttributionConfig config;
  AttributionTotals totals;
  uint32_t main_ctx = kNone, work = kNone, lock = kNone;
};

TEST_F(TableChangesTest, AWindowsRecordsAreListedOnceEach) {
  changes.next();
  snapshot(work, main_ctx);
  snapshot(work, main_ctx);
  attribute_window(window, tables, config, totals);
  EXPECT_EQ(listed(kContextTable), (std::set<uint32_t>{main_ctx, work}));
  EXPECT_EQ(listed(kProcedureTable).size(), 2u);  // main and work
  EXPECT_EQ(listed(kThreadTable), (std::set<uint32_t>{0, 1}));
  EXPECT_TRUE(listed(kObjectTable).empty());
  changes.next();
  EXPECT_TRUE(listed(kContextTable).empty());
}

TEST_F(TableChangesTest, AProvisionalAttributionIsTakenBackAndListedAgain) {
  snapshot(work, main_ctx);
  attribute_window(window, tables, config, totals);
  window.clear();
  changes.next();
  ASSERT_TRUE(copy.assign(tables));

  // The open window, with a mutex held that no closed window saw.
  snapshot(lock, main_ctx);
  snapshot(lock, work);
  AttributionTotals provisional = totals;
  changes.begin_provisional(tables);
  attribute_window(window, tables, config, provisional);
  EXPECT_GT(tables.object_entry(0).hold_s, 0) << "the open window's hold, while provisional";
  EXPECT_EQ(listed(kObjectTable), (std::set<uint32_t>{0}));
  changes.end_provisional();

  expect_same(tables, copy);
  EXPECT_EQ(listed(kObjectTable), (std::set<uint32_t>{0})) << "listed again, changed back";
  EXPECT_TRUE(listed(kContextTable).count(lock));
  EXPECT_TRUE(listed(kThreadTable).count(0));
}

}  // namespace
}  // namespace quartz::sampler
