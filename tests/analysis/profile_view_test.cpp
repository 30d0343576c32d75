// What the profile view lists: every procedure the hooks counted, sampled or not.
#include "analysis/profile_view.h"

#include <gtest/gtest.h>

#include "profile/run.h"

namespace quartz::analysis {
namespace {

// A run of two processors in which main called `work` 100 times and `tick` twice, and the
// only sample found main running: work and tick were never seen, yet they ran.
TEST(ProfileView, ProceduresCountedButNeverSampledAreListedWithTheirCalls) {
  profile::Run run;
  run.processors = 2;
  constexpr uint64_t kMain = 0x1000, kWork = 0x2000, kTick = 0x3000;
  profile::ProcedureInfo main_procedure;
  main_procedure.address = kMain;
  main_procedure.record.normalized_self = {0, 0.002, 0};
  main_procedure.record.normalized_behalf = main_procedure.record.processor_self =
      main_procedure.record.processor_behalf = {0, 0, 0};
  for (auto& bins : main_procedure.record.runnable) bins.assign(run.runnable_bins, 0);
  run.procedures.push_back(main_procedure);
  run.edges = {{0, kMain, 1}, {kMain, kWork, 100}, {kMain, kTick, 2}};

  const ProfileView view = analyze(run);
  ASSERT_EQ(view.procedures.size(), 3u);
  EXPECT_EQ(view.procedures[0].address, kMain);
  EXPECT_EQ(view.procedures[0].calls, 1u);
  EXPECT_DOUBLE_EQ(view.procedures[0].totals.normalized_s, 0.002);
  for (size_t i : {1, 2}) {
    const ProcedureRow& unseen = view.procedures[i];
    EXPECT_EQ(unseen.calls, unseen.address == kWork ? 100u : 2u);
    EXPECT_EQ(unseen.totals.normalized_s, 0);
    EXPECT_EQ(unseen.totals.histogram_s.size(), 3u);  // as long as a sampled one's
  }
}

// Objects the program acquired (or waited for, or held) are listed; one it only named, or
// a condition it only signalled with nobody waiting, is not: nothing happened on it.
TEST(ProfileView, ObjectsNeverAcquiredAreNotListed) {
  profile::Run run;
  run.processors = 2;
  auto object = [&](uint32_t id, uint32_t kind, uint64_t acquisitions, uint64_t posts) {
    profile::ObjectInfo o;
    o.id = id;
    o.address = 0x1000 * id;
    o.kind = kind;
    o.acquisitions = acquisitions;
    o.posts = posts;
    o.record.normalized_self = o.record.normalized_behalf = o.record.processor_self =
        o.record.processor_behalf = {0, 0, 0};
    for (auto& bins : o.record.runnable) bins.assign(run.runnable_bins, 0);
    return o;
  };
  run.objects = {object(1, capture::kMutex, 10, 0), object(2, capture::kMutex, 0, 0),
                 object(3, capture::kCondition, 0, 40), object(4, capture::kCondition, 5, 5)};
  run.objects[1].name = "named, never used";
  const ProfileView view = analyze(run);
  ASSERT_EQ(view.locks.size(), 2u);
  EXPECT_EQ(view.locks[0].id + view.locks[1].id, 1u + 4u);
}

// Threads of one routine that do different work are told apart by their role (the first
// procedure they entered below it), and only then: three unnamed threads of `entry`, two
// workers and a muxer; two of `pool`, both workers; one named thread of `entry`.
TEST(ProfileView, ThreadsOfOneRoutineWithDifferentRolesAreLabelledByRole) {
  profile::Run run;
  run.processors = 2;
  constexpr uint64_t kEntry = 0x1000, kPool = 0x2000, kWorker = 0x3000, kMuxer = 0x4000;
  for (auto [address, name] : {std::pair{kEntry, "entry"}, std::pair{kPool, "pool"},
                               std::pair{kWorker, "worker"}, std::pair{kMuxer, "muxer"}}) {
    run.symbols[address].function = name;
  }
  auto thread = [&](uint32_t index, uint64_t routine, uint64_t role, const char* name) {
    profile::ThreadInfo t;
    t.index = index;
    t.parent = 0;
    t.start_routine = routine;
    t.routines = {routine, role};
    t.named = name != nullptr;
    if (name) t.name = name;
    t.record.normalized_self = t.record.normalized_behalf = t.record.processor_self =
        t.record.processor_behalf = {0, 0, 0};
    for (auto& bins : t.record.runnable) bins.assign(run.runnable_bins, 0);
    return t;
  };
  run.threads = {thread(0, 0, 0, "program"),          thread(1, kEntry, kWorker, nullptr),
                 thread(2, kEntry, kWorker, nullptr), thread(3, kEntry, kMuxer, nullptr),
                 thread(4, kPool, kWorker, nullptr),  thread(5, kPool, kWorker, nullptr),
                 thread(6, kEntry, kMuxer, "writer")};
  const ProfileView view = analyze(run);
  ASSERT_EQ(view.threads.size(), 7u);
  const char* labels[] = {"program", "entry (worker)", "entry (worker)", "entry (muxer)",
                          "pool",    "pool",           "writer"};
  for (const ThreadRow& t : view.threads) EXPECT_EQ(t.label, labels[t.index]) << t.index;
}

}  // namespace
}  // namespace quartz::analysis
