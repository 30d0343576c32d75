// JavaPSL's cross-experiment properties over hand-made runs whose answers are worked out
// here: a program of 8 s of work and a 1 s serial part, on 1, 2 and 4 processors.
#include "analysis/scaling.h"

#include <gtest/gtest.h>

namespace quartz::analysis {
namespace {

// A run on `p` processors: `work` spreads perfectly, `serial` does not.
ProfileView run(uint32_t p, double work_s, double serial_s) {
  ProfileView v;
  v.processors = p;
  v.elapsed_s = work_s / p + serial_s;
  ProcedureRow work, serial;
  work.name = "work";
  work.totals.normalized_self_s = work_s / p;
  serial.name = "serial";
  serial.totals.normalized_self_s = serial_s;
  v.procedures = {work, serial};
  return v;
}

TEST(Scaling, AmdahlsProgram) {
  const Scaling s = scale({{4, {run(4, 8, 1)}},
                           {1, {run(1, 8, 1), run(1, 8.4, 1)}},
                           {2, {run(2, 8, 1), run(2, 8, 1.2), run(2, 8, 1.1)}}});
  ASSERT_EQ(s.processors, (std::vector<uint32_t>{1, 2, 4}));
  // Medians: 9 s (the lower of two), 5.1 s, 3 s.
  EXPECT_DOUBLE_EQ(s.elapsed_s[0], 9);
  EXPECT_DOUBLE_EQ(s.elapsed_s[1], 5.1);
  EXPECT_DOUBLE_EQ(s.min_s[1], 5);
  EXPECT_DOUBLE_EQ(s.max_s[1], 5.2);
  EXPECT_DOUBLE_EQ(s.speedup[2], 3);
  EXPECT_DOUBLE_EQ(s.ideal_speedup[2], 4);
  EXPECT_DOUBLE_EQ(s.efficiency[2], 0.75);
  EXPECT_DOUBLE_EQ(s.efficiency[1], 9 / 10.2);
  ASSERT_TRUE(s.non_scalability_known);
  EXPECT_DOUBLE_EQ(s.non_scalability, (9 / 10.2 + 0.75) / 2 - 0.75);
  // The serial part takes all the capacity lost: 4 x 1 s - 1 s on four processors; the
  // work none.
  ASSERT_EQ(s.regions.front().name, "serial");
  EXPECT_DOUBLE_EQ(s.regions.front().lost_s[2], 3);
  EXPECT_DOUBLE_EQ(s.regions.front().efficiency[2], 0.25);
  EXPECT_DOUBLE_EQ(s.regions[1].lost_s[2], 0);
  EXPECT_DOUBLE_EQ(s.regions[1].efficiency[2], 1);
}

TEST(Scaling, TwoCountsCannotTellNonScalability) {
  const Scaling s = scale({{1, {run(1, 8, 1)}}, {2, {run(2, 8, 1)}}});
  EXPECT_FALSE(s.non_scalability_known);
  EXPECT_DOUBLE_EQ(s.speedup[1], 9.0 / 5);
}

// A series as stored (interleaved repeats) becomes points of the same processors, fewest
// first, each with its repeats in order.
TEST(Scaling, RunsGroupByProcessors) {
  const std::vector<ScalePoint> points =
      points_by_processors({run(2, 8, 1), run(1, 8, 1), run(2, 8, 1.2), run(1, 8.4, 1)});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].processors, 1u);
  ASSERT_EQ(points[0].runs.size(), 2u);
  EXPECT_DOUBLE_EQ(points[0].runs[1].elapsed_s, 9.4);
  EXPECT_EQ(points[1].processors, 2u);
  EXPECT_DOUBLE_EQ(points[1].runs[1].elapsed_s, 5.2);
}

}  // namespace
}  // namespace quartz::analysis
