// The sampler's schedule (sampler/measure/period.h) on a clock of the test's own: snapshots
// whose walk costs what a model of so many threads says, woken on time or late, and what
// the schedule kept, worked out from the model's times.
#include "sampler/measure/period.h"

#include <gtest/gtest.h>

namespace quartz::sampler {
namespace period_test {  // its own names in a unity build
namespace {

constexpr uint64_t kUs = 1'000, kMs = 1'000'000;
constexpr uint64_t kAsked = 2 * kMs;

// Takes `count` snapshots on time, each walk costing `walk_ns` and ending `walk_ns` after
// its wake-up. Returns the time of the last wake-up.
uint64_t run_on_time(Schedule& schedule, uint64_t count, uint64_t walk_ns) {
  uint64_t now = 0;
  for (uint64_t i = 0; i < count; ++i) {
    now = schedule.due_ns();
    schedule.taken(now, walk_ns, now + walk_ns);
  }
  return now;
}

TEST(Schedule, AFewThreadsKeepThePeriodAskedFor) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  // 16 threads at ~1.5 us each: 1.2% of the period.
  const uint64_t last = run_on_time(schedule, 1000, 24 * kUs);
  EXPECT_EQ(schedule.period_ns(), kAsked);
  EXPECT_EQ(schedule.longest_period_ns(), kAsked);
  EXPECT_EQ(schedule.due(), 1000u);
  EXPECT_EQ(schedule.late(), 0u);
  EXPECT_EQ(schedule.lost(), 0u);
  EXPECT_EQ(last, 1000 * kAsked);  // every snapshot a period after the one before
}

TEST(Schedule, AWalkOverAThousandThreadsLengthensThePeriodUntilItFits) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  // 1,024 threads at 0.3 us: 307 us, 4% of 7.7 ms: the first doubling past it is 8 ms.
  run_on_time(schedule, 400, 307 * kUs);
  EXPECT_EQ(schedule.period_ns(), 8 * kMs);
  EXPECT_EQ(schedule.lost(), 0u);
  EXPECT_EQ(schedule.late(), 0u);
}

TEST(Schedule, ThePeriodComesBackWhenTheThreadsEnd) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  run_on_time(schedule, 400, 307 * kUs);
  ASSERT_EQ(schedule.period_ns(), 8 * kMs);
  run_on_time(schedule, 400, 24 * kUs);
  EXPECT_EQ(schedule.period_ns(), kAsked);
  EXPECT_EQ(schedule.longest_period_ns(), 8 * kMs);
}

// The first walks touch new pages and intern new contexts, and any may be preempted; and
// the sampler's own work after a snapshot (a big publication) may run past due times. Walks
// of 5 ms now and then (one in eight) among walks of 24 us, the snapshots they overran
// lost, leave the period as asked: that work keeps budgets of its own.

TEST(Schedule, AFewCostlyWalksDoNotLengthenThePeriod) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  for (int i = 0; i < 400; ++i) {
    const uint64_t now = schedule.due_ns();
    const uint64_t walk = i % 8 == 0 ? 5 * kMs : 24 * kUs;
    schedule.taken(now, walk, now + walk);
  }
  EXPECT_EQ(schedule.longest_period_ns(), kAsked);
  EXPECT_GT(schedule.lost(), 0u);
  EXPECT_EQ(schedule.late(), 0u);
}

TEST(Schedule, NeverPastSixtyFourTimesThePeriodAskedFor) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  run_on_time(schedule, 2000, 50 * kMs);  // a walk of 50 ms
  EXPECT_EQ(schedule.period_ns(), 64 * kAsked);
}

TEST(Schedule, ALateWakeUpIsCountedAndOneMissingPeriodsLosesTheirSnapshots) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  // Due at 2 ms, woken at 3.2 ms (more than half a period late), done at once: late, and
  // the next one due at 4 ms as planned.
  schedule.taken(3200 * kUs, 10 * kUs, 3210 * kUs);
  EXPECT_EQ(schedule.late(), 1u);
  EXPECT_EQ(schedule.lost(), 0u);
  ASSERT_EQ(schedule.due_ns(), 4 * kMs);
  // Due at 4 ms, woken on time but done at 11 ms (preempted): the ones due at 6, 8 and
  // 10 ms passed unseen; the next is a period after the end.
  schedule.taken(4 * kMs, 10 * kUs, 11 * kMs);
  EXPECT_EQ(schedule.late(), 1u);
  EXPECT_EQ(schedule.lost(), 3u);
  EXPECT_EQ(schedule.due(), 5u);  // two taken, three lost
  EXPECT_EQ(schedule.due_ns(), 13 * kMs);
}

// A sampler woken 7 ms late whenever its period is under 8 ms (normal priority among many
// runnable threads) is late and loses snapshots: the period doubles until it is woken in
// time, and is tried shorter again only now and then; woken in time, it comes back.
TEST(Schedule, LateWakeUpsLengthenThePeriod) {
  Schedule schedule;
  schedule.start(kAsked, 0);
  auto run = [&](int count, bool late) {
    for (int i = 0; i < count; ++i) {
      const uint64_t due = schedule.due_ns();
      const uint64_t woken = late && schedule.period_ns() < 8 * kMs ? due + 7 * kMs : due;
      schedule.taken(woken, 24 * kUs, woken + 24 * kUs);
    }
  };
  run(100, true);
  EXPECT_EQ(schedule.longest_period_ns(), 8 * kMs);
  const uint64_t lost = schedule.lost(), due = schedule.due();
  run(800, true);
  EXPECT_LT(8 * (schedule.lost() - lost), schedule.due() - due)
      << "at most one snapshot in eight lost once lengthened";
  run(200, false);
  EXPECT_EQ(schedule.period_ns(), kAsked) << "woken in time, the period asked for";
}

}  // namespace
}  // namespace period_test
}  // namespace quartz::sampler
