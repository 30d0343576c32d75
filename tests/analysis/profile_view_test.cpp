// What the profile view lists: every procedure the hooks counted, sampled or not.
#include "analysis/profile_view.h"

#include <gtest/gtest.h>

#include <sstream>

#include "analysis/report.h"
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

// An object no snapshot saw is loaded with an empty record (parse_capture): its row reads
// as zeros in histograms of the run's shape, like a sampled object's.
TEST(ProfileView, AnObjectNoSnapshotSawReadsAsZerosOfTheRunsShape) {
  profile::Run run;
  run.processors = 2;
  profile::ObjectInfo o;
  o.id = 1;
  o.address = 0x1000;
  o.acquisitions = 7;
  run.objects = {o};
  const ProfileView view = analyze(run);
  ASSERT_EQ(view.locks.size(), 1u);
  const Totals& t = view.locks[0].totals;
  EXPECT_EQ(t.histogram_s, std::vector<double>(3, 0));
  EXPECT_EQ(t.histogram_self_s, std::vector<double>(3, 0));
  for (const std::vector<double>& bins : t.runnable_s)
    EXPECT_EQ(bins, std::vector<double>(run.runnable_bins, 0));
  EXPECT_EQ(t.normalized_s, 0);
}

// A run of two processors: main (a program source) calls work through a C++ runtime frame
// (folded by default) and holds a mutex, each context with its own processor and
// normalized time in each bin, so that a view mixing the two, or a context's own and
// inclusive figures, reads differently.
profile::Run two_processor_run() {
  profile::Run run;
  run.processors = 2;
  constexpr uint64_t kMain = 0x1000, kInvoke = 0x2000, kWork = 0x3000, kLock = 0x9000;
  run.symbols[kMain] = {"main", "/src/app.cpp", 10, "/src/app"};
  run.symbols[kInvoke] = {"std::__invoke<void (*)()>", "/usr/include/c++/12/bits/invoke.h", 61,
                          "/src/app"};
  run.symbols[kWork] = {"work()", "/src/app.cpp", 20, "/src/app"};
  for (uint64_t address : {kMain, kInvoke, kWork}) {
    profile::ProcedureInfo p;
    p.address = address;
    p.record.normalized_self = p.record.processor_self = {0, 0.1, 0.2};
    p.record.normalized_behalf = p.record.processor_behalf = {0, 0, 0};
    for (auto& bins : p.record.runnable) bins.assign(run.runnable_bins, 0);
    run.procedures.push_back(p);
  }
  profile::ObjectInfo lock;
  lock.id = 1;
  lock.address = kLock;
  lock.kind = capture::kMutex;
  lock.acquisitions = 3;
  lock.record = run.procedures[0].record;
  run.objects.push_back(lock);
  auto context = [&](uint32_t parent, uint64_t address, uint32_t kind, double scale) {
    profile::ContextInfo c;
    c.parent = parent;
    c.address = address;
    c.kind = kind;
    c.own.state[capture::kBusy] = scale;
    c.own.state[capture::kBlocked] = scale / 4;
    profile::ContextRecord r;
    r.processor = {0.01 * scale, 0.3 * scale, 0.5 * scale};
    r.normalized = {0, 0.3 * scale, 0.25 * scale};
    run.add_context(c, r);
  };
  context(capture::kNoParent, kMain, capture::kProcedure, 1);
  context(0, kInvoke, capture::kProcedure, 2);
  context(1, kWork, capture::kProcedure, 3);
  context(0, kLock, capture::kMutex, 5);
  context(3, kWork, capture::kProcedure, 7);
  context(capture::kNoParent, kWork, capture::kProcedure, 11);
  run.edges = {{0, kMain, 1}, {kMain, kInvoke, 4}, {kInvoke, kWork, 4}, {kMain, kWork, 2}};
  run.program.normalized_self = run.program.processor_self = {0, 8, 9};
  run.program.normalized_behalf = run.program.processor_behalf = {0, 0, 0};
  for (auto& bins : run.program.runnable) bins.assign(run.runnable_bins, 0);
  return run;
}

std::string json_of(const ProfileView& view) {
  std::ostringstream out;
  print_json_report(out, view, {});
  return out.str();
}

// Taking the run's contexts is a matter of memory only: the same view as a copy gives,
// folded or with every frame, and a run left without contexts.
TEST(ProfileView, TakingTheRunsContextsGivesTheSameView) {
  for (const bool all_frames : {false, true}) {
    const profile::Run run = two_processor_run();
    const ProfileView copied = analyze(run, {.all_frames = all_frames});
    profile::Run taken_from = run;
    const ProfileView taken = analyze_taking_contexts(taken_from, {.all_frames = all_frames});
    EXPECT_EQ(json_of(taken), json_of(copied)) << "all frames: " << all_frames;
    EXPECT_EQ(taken.contexts.size(), all_frames ? 6u : 5u);
    EXPECT_TRUE(taken_from.contexts.empty());
    EXPECT_TRUE(taken_from.context_bins.empty());
    // work() under main through the folded frame: its own bins are the run's normalized
    // ones, its inclusive ones the same (a leaf), its processor time the run's.
    const ContextRow& work = taken.contexts[all_frames ? 2 : 1];
    ASSERT_EQ(taken.name_of(work), "work()");
    EXPECT_DOUBLE_EQ(work.processor_self_s, (0.01 + 0.3 + 0.5) * 3);
    EXPECT_DOUBLE_EQ(taken.histogram_self_of(work)[2], 0.25 * 3);
    // main: its own time (the folded frame's too), then with its subtree (all but the
    // root-level work).
    const ContextRow& main = taken.contexts[0];
    EXPECT_DOUBLE_EQ(taken.histogram_self_of(main)[1], 0.3 * (all_frames ? 1 : 1 + 2));
    EXPECT_DOUBLE_EQ(taken.histogram_of(main)[1], 0.3 * (1 + 2 + 3 + 5 + 7));
    EXPECT_DOUBLE_EQ(main.processor_s, 0.81 * (1 + 2 + 3 + 5 + 7));
  }
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
