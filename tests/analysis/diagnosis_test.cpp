// Findings (analysis/diagnosis.h) on hand-built views whose answers are worked out by hand:
// start-up and wind-down starvation, and the same idle time never reported twice (by a
// serial bottleneck, a load imbalance or blocking in the kernel).
#include "analysis/diagnosis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/diagnosis_check.h"
#include "analysis/profile_view.h"
#include "analysis/text_format.h"

namespace quartz::analysis {
namespace {

constexpr uint64_t kLoadInput = 0x200, kSolveProcedure = 0x300;

const Finding* finding_of(const std::vector<Finding>& findings, Property property) {
  for (const Finding& f : findings) {
    if (f.property == property) return &f;
  }
  return nullptr;
}

ThreadRow thread_row(uint32_t index, const std::string& name, double busy_s,
                     double lifetime_s = 0) {
  ThreadRow t;
  t.index = index;
  t.name = name;
  t.busy_s = busy_s;
  t.lifetime_s = lifetime_s > 0 ? lifetime_s : busy_s;
  return t;
}

// A run of 1 s on 2 processors, sampled every 2 ms: its time with 0, 1 and 2 processors
// busy, and its processor time.
ProfileView one_second_on_two_processors(const std::vector<double>& parallelism_s,
                                         double processor_s) {
  ProfileView view;
  view.processors = 2;
  view.elapsed_s = 1.0;
  view.parallelism_s = parallelism_s;
  view.program_totals.processor_s = processor_s;
  view.quality.period_s = 0.002;
  return view;
}

// A procedure running alone (one processor busy) for `one_busy_s`, `starved_s` of it while
// the other processor had no thread at work and `taken_s` while the program's other threads
// were ready for it (analyze() sums these from the contexts: OneBusyTime).
void add_alone(ProfileView& view, uint64_t address, const std::string& name, double one_busy_s,
               double starved_s, double taken_s = 0) {
  ProcedureRow p;
  p.address = address;
  p.name = name;
  p.totals.processor_self_s = one_busy_s;
  p.totals.histogram_self_s = {0, one_busy_s, 0};
  p.one_busy = {one_busy_s - starved_s - taken_s, starved_s, taken_s};
  view.procedures.push_back(p);
}

// stages on 2 processors over 1 s: main joins; the loader works alone 0.3 s, with the
// solver 0.4 s; the solver alone 0.3 s. 0.6 processor-seconds with no thread to run.
ProfileView stages() {
  ProfileView view;
  view.processors = 2;
  view.elapsed_s = 1.0;
  view.parallelism_s = {0, 0.6, 0.4};
  view.program_totals.processor_s = 1.4;
  view.program_totals.state_s[capture::kBusy] = 1.4;
  view.program_totals.state_s[capture::kBlocked] = 1.0;  // main, in its joins
  view.quality.period_s = 0.002;
  add_alone(view, kLoadInput, "load_input", 0.3, 0.3);
  add_alone(view, kSolveProcedure, "solve", 0.3, 0.3);
  LockRow join;
  join.name = "join loader";
  join.kind = capture::kJoin;
  join.wait_s = join.wait_blocked_s = 1.0;
  view.locks.push_back(join);
  view.threads = {thread_row(0, "stages", 0), thread_row(1, "loader", 0.7),
                  thread_row(2, "solver", 0.7)};
  view.threads[1].starved_startup_s = 0.3;
  view.threads[2].starved_later_s = 0.3;
  view.starvation.measured = true;
  view.starvation.startup_s = 0.3;
  view.starvation.winddown_s = 0.3;
  view.starvation.first_full_s = 0.3;
  view.starvation.last_full_s = 0.7;
  return view;
}

TEST(Diagnosis, StarvationIsTheIdleProcessorsShareAndNotASerialBottleneck) {
  const std::vector<Finding> findings = diagnose(stages());
  ASSERT_FALSE(findings.empty());
  const Finding& top = findings[0];
  EXPECT_EQ(top.property, Property::starvation);
  EXPECT_EQ(property_name(top.property), "start-up and wind-down starvation");
  EXPECT_DOUBLE_EQ(top.severity, 0.6 / 2.0);  // processor-seconds over P E
  EXPECT_EQ(top.subject, "loader");           // ties go to the first
  EXPECT_NE(top.evidence.find("300.00 ms at start-up"), std::string::npos) << top.evidence;
  EXPECT_NE(top.evidence.find("300.00 ms at wind-down"), std::string::npos) << top.evidence;
  EXPECT_GT(top.confidence, 0.9);  // 0.3 s of periods of 2 ms
  EXPECT_FALSE(about_measurement(top.property));
  // The procedures ran alone only while the other processor had no thread: not serial.
  EXPECT_EQ(finding_of(findings, Property::serial_bottleneck), nullptr);
  EXPECT_EQ(finding_of(findings, Property::kernel_blocking), nullptr);
}

TEST(Diagnosis, AProcedureAloneWithOthersWaitingStaysASerialBottleneck) {
  ProfileView view = stages();
  view.procedures[0].one_busy = {0.2, 0.1, 0};  // 0.2 s of load_input's 0.3 s others waited
  view.starvation.startup_s = 0.1;
  view.threads[1].starved_startup_s = 0.1;
  const std::vector<Finding> findings = diagnose(view);
  const Finding* serial = finding_of(findings, Property::serial_bottleneck);
  ASSERT_NE(serial, nullptr);
  EXPECT_EQ(serial->subject, "load_input");
  EXPECT_DOUBLE_EQ(serial->severity, 0.2 * (1 - 1.0 / 2) / 1.0);
  const Finding* starved = finding_of(findings, Property::starvation);
  ASSERT_NE(starved, nullptr);
  EXPECT_DOUBLE_EQ(starved->severity, 0.4 / 2.0);
}

// A procedure alone while the program's other threads were ready for the other processor
// (taken by another process, or being woken) did not make that processor wait: of its
// 0.3 s alone, 0.1 s starved and 0.15 s taken, so 0.05 s is serial, and the evidence says
// where the rest went.
TEST(Diagnosis, AProcedureAloneWhileOthersWereReadyIsNotSerialForThatPart) {
  ProfileView view = stages();
  view.procedures[0].one_busy = {0.05, 0.1, 0.15};
  view.starvation.startup_s = 0.1;
  view.threads[1].starved_startup_s = 0.1;
  const std::vector<Finding> findings = diagnose(view, 0.0);
  const Finding* serial = finding_of(findings, Property::serial_bottleneck);
  ASSERT_NE(serial, nullptr);
  EXPECT_EQ(serial->subject, "load_input");
  EXPECT_DOUBLE_EQ(serial->severity, 0.05 * (1 - 1.0 / 2) / 1.0);
  EXPECT_NE(serial->evidence.find("150.00 ms more alone while its other threads were ready"),
            std::string::npos)
      << serial->evidence;
}

// Two threads of one routine, busy 0.5 s and 1 s from the start, on 2 processors: the
// second runs its last 0.5 s alone. That is the routine's load imbalance, once.
TEST(Diagnosis, AWindDownOfOneRoutinesThreadsIsItsLoadImbalance) {
  ProfileView view;
  view.processors = 2;
  view.elapsed_s = 1.0;
  view.parallelism_s = {0, 0.5, 0.5};
  view.program_totals.processor_s = 1.5;
  view.quality.period_s = 0.002;
  view.threads = {thread_row(0, "main", 0), thread_row(1, "share_0", 0.5),
                  thread_row(2, "share_1", 1.0)};
  view.threads[2].starved_later_s = 0.5;
  view.starvation.measured = true;
  view.starvation.winddown_s = 0.5;
  view.starvation.first_full_s = 0.0;
  view.starvation.last_full_s = 0.5;
  const std::vector<Finding> findings = diagnose(view, 0.0);
  const Finding* imbalance = finding_of(findings, Property::load_imbalance);
  ASSERT_NE(imbalance, nullptr);
  EXPECT_DOUBLE_EQ(imbalance->severity, (1.0 - 0.75) / 1.0);
  const Finding* starved = finding_of(findings, Property::starvation);
  ASSERT_NE(starved, nullptr);
  EXPECT_DOUBLE_EQ(starved->severity, 0.0);
  EXPECT_NE(starved->evidence.find("2 threads share ending apart"), std::string::npos)
      << starved->evidence;
  EXPECT_EQ(findings[0].property, Property::load_imbalance);
}

// A routine that makes a team per phase (minimap2's kt_for: two workers for 80 ms while it
// indexes, two for 4.4 s while it maps): each team is weighed on its own. Here the first
// team, at 0-0.1 s, is busy 0.05 s each; the second, at 0.2-1.0 s, 0.8 and 0.6 s: its
// imbalance is (0.8 - 0.7) / 1 s. All four as one would say (0.8 - 0.375) / 1 s.
TEST(Diagnosis, EachTeamOfARoutineIsWeighedOnItsOwn) {
  ProfileView view = one_second_on_two_processors({0.1, 0.3, 0.6}, 1.5);
  view.threads = {thread_row(0, "main", 0), thread_row(1, "ktf_worker", 0.05, 0.1),
                  thread_row(2, "ktf_worker", 0.05, 0.1), thread_row(3, "ktf_worker", 0.8, 0.8),
                  thread_row(4, "ktf_worker", 0.6, 0.8)};
  view.threads[3].start_s = view.threads[4].start_s = 0.2;
  std::vector<const Finding*> imbalances;
  const std::vector<Finding> findings = diagnose(view, 0.0);
  for (const Finding& f : findings) {
    if (f.property == Property::load_imbalance) imbalances.push_back(&f);
  }
  ASSERT_EQ(imbalances.size(), 2u);
  std::sort(imbalances.begin(), imbalances.end(),
            [](const Finding* a, const Finding* b) { return a->severity > b->severity; });
  EXPECT_NEAR(imbalances[0]->severity, 0.1, 1e-12);
  EXPECT_EQ(imbalances[0]->subject, "2 threads ktf_worker from " + text::seconds(0.2));
  EXPECT_DOUBLE_EQ(imbalances[1]->severity, 0.0);
  EXPECT_EQ(imbalances[1]->subject, "2 threads ktf_worker from " + text::seconds(0.0));
}

// One routine starting threads that do different work (lbzip2's thread_entry: two workers
// busy 0.9 s, a splitter and a muxer busy 0.01 and 0.02 s): the workers are a team, the
// others each their own; no imbalance between a worker and the muxer. As one team the four
// would say (0.9 - 0.4575) / 1 s.
TEST(Diagnosis, ThreadsOfOneRoutineDoingDifferentWorkAreNotOneTeam) {
  ProfileView view = one_second_on_two_processors({0, 0.2, 0.8}, 1.83);
  view.threads = {thread_row(0, "main", 0), thread_row(1, "thread_entry", 0.9, 1.0),
                  thread_row(2, "thread_entry", 0.01, 1.0),
                  thread_row(3, "thread_entry", 0.02, 1.0),
                  thread_row(4, "thread_entry", 0.9, 1.0)};
  const char* roles[] = {"", "worker", "splitter", "muxer", "worker"};
  for (ThreadRow& t : view.threads) {
    t.role = roles[t.index];
    t.role_address = 0x1000 * t.role.size();  // one address per role
  }
  const std::vector<Finding> findings = diagnose(view, 0.0);
  const Finding* imbalance = finding_of(findings, Property::load_imbalance);
  ASSERT_NE(imbalance, nullptr);
  EXPECT_EQ(imbalance->subject, "2 threads thread_entry (worker)");
  EXPECT_DOUBLE_EQ(imbalance->severity, 0.0);
  for (const Finding& f : findings) {
    if (f.property == Property::load_imbalance) {
      EXPECT_EQ(f.subject, imbalance->subject);
    }
  }
}

// The profiler's intrusion says what would lower it: with patched entries, the run's own
// options; with the compiler's hooks, the build.
TEST(Diagnosis, TheIntrusionsAdviceIsTheWayProceduresWereSeen) {
  ProfileView view;
  view.processors = 2;
  view.elapsed_s = 1.0;
  view.quality.period_s = 0.002;
  view.quality.dilation_removed_s = 0.2;
  auto advice = [&] {
    const std::vector<Finding> findings = diagnose(view, 0.0);
    const Finding* f = finding_of(findings, Property::profiler_intrusion);
    return f ? f->advice : std::string("(none)");
  };
  EXPECT_NE(advice().find("build with clang"), std::string::npos) << advice();
  view.quality.patched_entries = 205;
  EXPECT_NE(advice().find("a smaller --budget"), std::string::npos) << advice();
}

// The same, with equal work: the second thread ended later because other processes took
// its processor half the time (ready). Its siblings' end is still the routine's, not
// starvation; the ready time is the measurement's finding.
TEST(Diagnosis, AWindDownOfOneRoutinesThreadsIsNeverStarvationWhateverDelayedOne) {
  ProfileView view;
  view.processors = 2;
  view.elapsed_s = 1.0;
  view.parallelism_s = {0, 1.0, 0};
  view.program_totals.processor_s = 1.0;
  view.program_totals.state_s[capture::kReady] = 0.5;
  view.quality.period_s = 0.002;
  view.threads = {thread_row(0, "main", 0), thread_row(1, "worker_0", 0.5, 0.5),
                  thread_row(2, "worker_1", 0.5, 1.0)};
  view.threads[2].ready_s = 0.5;
  view.threads[2].starved_later_s = 0.5;
  view.starvation.measured = true;
  view.starvation.winddown_s = 0.5;
  view.starvation.first_full_s = 0.0;
  view.starvation.last_full_s = 0.5;
  const std::vector<Finding> findings = diagnose(view, 0.0);
  const Finding* starved = finding_of(findings, Property::starvation);
  ASSERT_NE(starved, nullptr);
  EXPECT_DOUBLE_EQ(starved->severity, 0.0);
  EXPECT_DOUBLE_EQ(finding_of(findings, Property::load_imbalance)->severity, 0.0);
  const std::vector<Finding> shown = diagnose(view);  // 1% and more
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].property, Property::other_processes);

  // Workers of one routine whose first work differs (serial_init deals kernel_0 and
  // kernel_1) are not one team: the wind-down is the ready time's as far as other
  // processes are measured to have taken the processors (issue 41: beside a CPU-bound
  // process, serial_init's first finding was this starvation, not its serial logging).
  view.threads[1].role = "kernel_0";
  view.threads[1].role_address = 0x100;
  view.threads[2].role = "kernel_1";
  view.threads[2].role_address = 0x200;
  const std::vector<Finding> unmeasured = diagnose(view, 0.0);
  starved = finding_of(unmeasured, Property::starvation);
  ASSERT_NE(starved, nullptr);
  EXPECT_DOUBLE_EQ(starved->severity, 0.5 / 2.0) << "nothing measured to have taken them";
  view.quality.other_cpu_s = 0.3;
  const std::vector<Finding> measured = diagnose(view, 0.0);
  starved = finding_of(measured, Property::starvation);
  ASSERT_NE(starved, nullptr);
  EXPECT_DOUBLE_EQ(starved->severity, 0.2 / 2.0) << starved->evidence;
  EXPECT_NE(starved->evidence.find("300.00 ms more is the time the threads running then had "
                                   "been ready for a processor other processes took"),
            std::string::npos)
      << starved->evidence;
}

// Four threads on 2 processors over 1 s use 1.2 processor-seconds, ready 0.5 s: 0.4 s with
// more runnable than processors. Other processes took 0.6 s (measured), at most the 0.5 s
// the threads were ready (the rest ran where the program left a processor idle anyway): of
// the 0.8 s it did not use, 0.3 s was idle, all oversubscription could have cost.
TEST(Diagnosis, ProcessorsOtherProcessesTookWereNotLeftIdle) {
  ProfileView view = one_second_on_two_processors({0, 0.8, 0.2}, 1.2);
  view.program_totals.state_s[capture::kReady] = 0.5;
  view.program_totals.runnable_s.resize(capture::kStateCount);
  view.program_totals.runnable_s[capture::kReady] = {0, 0, 0.1, 0.4};
  const std::vector<Finding> unmeasured = diagnose(view, 0.0);
  const Finding* over = finding_of(unmeasured, Property::oversubscription);
  ASSERT_NE(over, nullptr);
  EXPECT_DOUBLE_EQ(over->severity, 0.4 / 2.0);  // unmeasured: all 0.8 s counted idle
  view.quality.other_cpu_s = 0.6;
  const std::vector<Finding> findings = diagnose(view, 0.0);
  over = finding_of(findings, Property::oversubscription);
  ASSERT_NE(over, nullptr);
  EXPECT_NEAR(over->severity, 0.3 / 2.0, 1e-12);
  const Finding* others = finding_of(findings, Property::other_processes);
  ASSERT_NE(others, nullptr);
  EXPECT_NE(others->evidence.find("other processes took 600.00 ms ( 30.0% of its processors)"),
            std::string::npos)
      << others->evidence;
}

// Idle processors with no thread at work are not blocking in the kernel, even when every
// thread that waited waited there.
TEST(Diagnosis, StarvedProcessorsAreNotBlockingInTheKernel) {
  ProfileView view = stages();
  view.locks.clear();  // main's 1 s blocked now counts as in the kernel
  view.program_totals.state_s[capture::kBlocked] = 1.2;
  view.program_totals.processor_s = 1.2;  // 0.2 s more idle: threads at work, asleep
  const std::vector<Finding> findings = diagnose(view);
  const Finding* kernel = finding_of(findings, Property::kernel_blocking);
  ASSERT_NE(kernel, nullptr);
  EXPECT_NEAR(kernel->severity, 0.2 / 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(finding_of(findings, Property::starvation)->severity, 0.3);
}

// A serial set-up before the program's other threads exist (OpenMP's first region, the
// first pthread_create) and 4 ms of blocking in the kernel later, with a processor idle:
// the set-up is the serial bottleneck, and blocking explains no more idle capacity than the
// 4 ms it lasted, however large its share of the blocking (issue 41: NAS CG read "436.84 ms
// left idle" against 6.79 ms blocked).
TEST(Diagnosis, ASerialSetUpIsNotBlockingHoweverLittleBlockingThereWas) {
  ProfileView view = one_second_on_two_processors({0, 0.4, 0.6}, 1.6);
  view.program_totals.state_s[capture::kBusy] = 1.6;
  view.program_totals.state_s[capture::kBlocked] = 0.004;
  view.program_totals.runnable_s.assign(capture::kStateCount, std::vector<double>(3, 0.0));
  view.program_totals.runnable_s[capture::kBlocked][1] = 0.004;
  view.starvation.measured = true;
  add_alone(view, kLoadInput, "set_up", 0.4, 0);
  const std::vector<Finding> findings = diagnose(view, 0.0);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].property, Property::serial_bottleneck);
  EXPECT_EQ(findings[0].subject, "set_up");
  EXPECT_NEAR(findings[0].severity, 0.4 * 0.5 * (1 - 0.004 / 0.4), 1e-12);
  const Finding* kernel = finding_of(findings, Property::kernel_blocking);
  ASSERT_NE(kernel, nullptr);
  EXPECT_NEAR(kernel->severity, 0.004 / 2.0, 1e-12);
  EXPECT_TRUE(finding_contradictions(view, findings).empty());
  // The finding the old rule made (the idle capacity × the kernel's share of blocking,
  // 1 here) is flagged: it claims 400 ms of 4 ms.
  Finding old = *kernel;
  old.severity = 0.4 / 2.0;
  const std::vector<std::string> lines = finding_contradictions(view, {old});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("blocking not overlapped of the program: claims 400.00 ms"),
            std::string::npos)
      << lines[0];
}

// Every finding of the hand-built views claims no more than the figures it explains, and
// the idle capacity they claim together is no more than the program left unused.
TEST(Diagnosis, NoFindingClaimsMoreThanItsFigures) {
  for (const ProfileView& view : {stages(), one_second_on_two_processors({0.2, 0.5, 0.3}, 1.1)}) {
    EXPECT_THAT(finding_contradictions(view, diagnose(view, 0.0)), testing::IsEmpty());
  }
  ProfileView view = stages();
  Finding twice;  // starvation claimed twice over
  twice.property = Property::starvation;
  twice.severity = 0.6;
  twice.subject = "the program";
  EXPECT_THAT(finding_contradictions(view, {twice}),
              testing::ElementsAre(testing::HasSubstr("more than starved processor time"),
                                   testing::HasSubstr("more than the program did not work")));
}

// A capture from before Quartz measured starvation: no finding, rather than a zero.
TEST(Diagnosis, NoStarvationFindingWithoutTheMeasurement) {
  ProfileView view = stages();
  view.starvation = Starvation{};
  EXPECT_EQ(finding_of(diagnose(view, 0.0), Property::starvation), nullptr);
}

// What the findings read from the contexts is summed when the view is made (OneBusyTime,
// LongestWait): a procedure's time alone, less its starved and taken parts (each at most
// what is left of it), outside held objects. main alone 0.3 s, 0.1 s of it starved and 0.5 s
// "taken" (more than the 0.2 s left); `work` alone 0.2 s under main (0.05 s starved) and
// 0.4 s under a mutex main holds (not serial: the lock's findings have it), blocked 0.7 s.
TEST(Diagnosis, TheViewSumsEachProceduresTimeAloneOutsideHeldObjects) {
  constexpr uint64_t kMain = 0x100, kMutex = 0x900;
  profile::Run run;
  run.processors = 2;
  run.symbols[kMain] = {"main", "", 0, ""};
  run.symbols[kSolveProcedure] = {"solve", "", 0, ""};
  auto add = [&](uint32_t parent, uint64_t address, uint32_t kind, double one_busy_s,
                 double starved_s, double taken_s, double blocked_s) {
    profile::ContextRecord record;
    record.normalized = record.processor = {0, one_busy_s, 0};
    record.states.state[capture::kBlocked] = blocked_s;
    record.states.one_busy_starved = starved_s;
    record.states.one_busy_taken = taken_s;
    profile::ContextInfo context;
    context.parent = parent;
    context.address = address;
    context.kind = kind;
    run.add_context(context, record);
  };
  add(capture::kNoParent, kMain, capture::kProcedure, 0.3, 0.1, 0.5, 0);
  add(0, kMutex, capture::kMutex, 0, 0, 0, 0);
  add(1, kSolveProcedure, capture::kProcedure, 0.4, 0, 0, 0);
  add(0, kSolveProcedure, capture::kProcedure, 0.2, 0.05, 0, 0.7);
  for (const uint64_t address : {kMain, kSolveProcedure}) {
    profile::ProcedureInfo p;
    p.address = address;
    p.record.processor_self = p.record.processor_behalf = {0, 0, 0};
    p.record.normalized_self = p.record.normalized_behalf = {0, 0, 0};
    for (auto& bins : p.record.runnable) bins.assign(2, 0);
    run.procedures.push_back(p);
  }
  const ProfileView view = analyze(run, {.contexts = false, .children = false});
  ASSERT_EQ(view.procedures.size(), 2u);
  for (const ProcedureRow& row : view.procedures) {
    if (row.address == kMain) {
      EXPECT_DOUBLE_EQ(row.one_busy.serial_s, 0);
      EXPECT_DOUBLE_EQ(row.one_busy.starved_s, 0.1);
      EXPECT_DOUBLE_EQ(row.one_busy.taken_s, 0.2);
    } else {
      EXPECT_DOUBLE_EQ(row.one_busy.serial_s, 0.15);
      EXPECT_DOUBLE_EQ(row.one_busy.starved_s, 0.05);
      EXPECT_DOUBLE_EQ(row.one_busy.taken_s, 0);
    }
  }
  EXPECT_EQ(view.longest_wait.name, "solve");
  EXPECT_DOUBLE_EQ(view.longest_wait.wait_s, 0.7);
}

}  // namespace
}  // namespace quartz::analysis
