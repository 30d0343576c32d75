// The figures no run can have (analysis/invariants.h): a possible run has none, and each
// impossible figure is one line naming its record.
#include "analysis/invariants.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "profile/run.h"

namespace quartz::analysis {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

profile::FullRecord record(std::vector<double> processor, std::vector<double> normalized) {
  profile::FullRecord r;
  r.processor_self = std::move(processor);
  r.normalized_self = std::move(normalized);
  r.processor_behalf = r.normalized_behalf = std::vector<double>(r.processor_self.size(), 0);
  return r;
}

// Two seconds on two processors: 0.5 s with none busy, 1 s with one, 0.5 s with both; one
// thread alive throughout (1.5 s busy, 0.5 s blocked) and one mutex nobody waited for.
profile::Run possible_run() {
  profile::Run run;
  run.processors = 2;
  run.info[capture::run_keys::kElapsedNs] = "2000000000";
  run.info[capture::run_keys::kPeriodNs] = "1000000";
  run.program = record({0, 1, 1}, {0.5, 1, 0.5});
  profile::ThreadInfo thread;
  thread.record = record({0, 1, 0.5}, {0, 1, 0.25});
  thread.record.state_self[capture::kBusy] = 1.5;
  thread.record.state_self[capture::kBlocked] = 0.5;
  run.threads.push_back(thread);
  profile::ObjectInfo mutex;
  mutex.name = "queue_lock";
  mutex.record = record({0, 0, 0}, {0, 0, 0});
  mutex.queue = {2};
  run.objects.push_back(mutex);
  return run;
}

TEST(Invariants, APossibleRunHasNone) {
  EXPECT_THAT(invariant_violations(possible_run()), ElementsAre());
}

TEST(Invariants, EachImpossibleFigureIsOneLineNamingItsRecord) {
  profile::Run negative = possible_run();
  negative.threads[0].record.normalized_behalf[0] = -0.1;
  EXPECT_THAT(invariant_violations(negative),
              ElementsAre(HasSubstr("thread 0 normalized_behalf[0] = -0.1")));

  profile::Run not_a_number = possible_run();
  not_a_number.objects[0].queue[0] = std::nan("");
  EXPECT_THAT(invariant_violations(not_a_number),
              ElementsAre(HasSubstr("object queue_lock (0x0) queue[0] = nan")));

  profile::Run bins = possible_run();  // 0.1 s of the elapsed time in no bin
  bins.program.normalized_self[0] = 0.4;
  EXPECT_THAT(invariant_violations(bins),
              ElementsAre("parallelism bins sum to 1.9 s, elapsed 2 s"));

  profile::Run normalized = possible_run();  // the thread's 0.5 s with both busy counted whole
  normalized.threads[0].record.normalized_self[2] = 0.6;
  EXPECT_THAT(invariant_violations(normalized),
              ElementsAre(HasSubstr("thread 0 (self): normalized time 0.6 s above processor "
                                    "time 0.5 s with 2 busy")));

  profile::Run queue = possible_run();  // two threads waiting, in a run of one
  queue.objects[0].queue = {2, 0, 0.1};
  EXPECT_THAT(invariant_violations(queue),
              ElementsAre(HasSubstr("0.1 s with 2 threads waiting, of 1 threads")));

  profile::Run states = possible_run();  // 2 ms unaccounted for: more than a period
  states.threads[0].record.state_self[capture::kBlocked] = 0.498;
  EXPECT_THAT(invariant_violations(states),
              ElementsAre(HasSubstr("thread 0: states sum to 1.998 s, its lifetime 2 s")));

  profile::Run busy = possible_run();  // exited at 1 s, yet 1.5 s busy
  busy.threads[0].exited_ns = 1'000'000'000;
  busy.threads[0].record.state_self[capture::kBlocked] = 0;
  busy.threads[0].record.state_self[capture::kBusy] = 1;
  busy.threads[0].record.processor_self = {0, 1, 0.5};
  EXPECT_THAT(
      invariant_violations(busy),
      ElementsAre(HasSubstr("thread 0: processor time 1.5 s, longer than its lifetime 1 s")));
}

// Start-up and wind-down starvation: processor time no more than the processors had, the
// threads' charges within it, a context's starved part within its time with one busy.
TEST(Invariants, Starvation) {
  profile::Run possible = possible_run();
  possible.info[capture::run_keys::kStarvedStartupNs] = "500000000";
  possible.info[capture::run_keys::kStarvedWinddownNs] = "250000000";
  possible.threads[0].starved_later_s = 0.7;
  profile::ContextRecord record;
  record.processor = {0, 1, 0};
  record.normalized = {0, 1, 0};
  record.states.one_busy_starved = 0.75;
  record.states.one_busy_taken = 0.25;
  possible.add_context({}, record);
  EXPECT_THAT(invariant_violations(possible), ElementsAre());

  profile::Run too_much = possible;  // 4.5 s of two processors' 4 s
  too_much.info[capture::run_keys::kStarvedBetweenNs] = "3750000000";
  EXPECT_THAT(invariant_violations(too_much),
              ElementsAre("starved 4.5 s, more than the processors' time 4 s"));

  profile::Run charged = possible;
  charged.threads[0].starved_startup_s = 0.1;
  EXPECT_THAT(invariant_violations(charged),
              ElementsAre("threads charged with 0.8 s of starvation, of 0.75 s"));

  profile::Run context_starved = possible;
  context_starved.contexts[0].own.one_busy_starved = 1.25;
  EXPECT_THAT(invariant_violations(context_starved),
              ElementsAre(HasSubstr("context 0: 1.25 s starved, 0.25 s taken and 0 s waited "
                                    "for with one processor busy, of 1 s")));
  profile::Run context_taken = possible;  // apart, each fits; together, more than it had
  context_taken.contexts[0].own.one_busy_taken = 0.5;
  EXPECT_THAT(invariant_violations(context_taken),
              ElementsAre(HasSubstr("context 0: 0.75 s starved, 0.5 s taken")));
  profile::Run context_waited = possible;  // each of the three fits; together, more
  context_waited.contexts[0].own.one_busy_waited = 0.25;
  EXPECT_THAT(invariant_violations(context_waited),
              ElementsAre(HasSubstr("0.75 s starved, 0.25 s taken and 0.25 s waited for")));
}

}  // namespace
}  // namespace quartz::analysis
