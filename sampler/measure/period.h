// The sampler's schedule (docs/design.md "Sampler"): snapshots a period apart, the period
// the one asked for until the least of eight walks over the threads costs more than 4% of
// it (many threads), or two wake-ups in eight are late; then doubled as far as it takes, and
// halved back, never below the one asked for, when the most of eight falls under 1%.
// Windows, publications and amendments keep budgets of their own, which a longer period
// would not lower. And what the schedule kept: the snapshots due, those taken late (more
// than half a period after they were due) and those lost (a wake-up or work more than a
// period late skips the ones it missed: snapshots back to back would stand for nothing).
// Pure arithmetic on the times it is given, on the sampler thread only.
#pragma once

#include <cstdint>

#include "support/attributes.h"

namespace quartz::sampler {

class Schedule {
 public:
  // A snapshot's walk at most this share of the period: with windows (~1.5%),
  // publications (2.5%) and amendments (1.6%) the sampler stays near a tenth of a processor.
  static constexpr double kCostShare = 0.04;
  static constexpr uint32_t kMaxLengthening = 64;  // the period at most this times the asked one

  QUARTZ_NOINSTR void start(uint64_t period_ns, uint64_t now);
  // When the next snapshot is due.
  QUARTZ_NOINSTR uint64_t due_ns() const { return due_ns_; }
  // The snapshot due was taken at `taken_ns` and its walk cost the sampler `cost_ns` of its
  // own processor time: counts it, adapts the period, schedules the next one (after `now`,
  // when the sampler's work for it ended).
  QUARTZ_NOINSTR void taken(uint64_t taken_ns, uint64_t cost_ns, uint64_t now);

  QUARTZ_NOINSTR uint64_t period_ns() const { return period_ns_; }
  QUARTZ_NOINSTR uint64_t longest_period_ns() const { return longest_ns_; }
  QUARTZ_NOINSTR uint64_t due() const { return due_; }
  QUARTZ_NOINSTR uint64_t late() const { return late_; }
  QUARTZ_NOINSTR uint64_t lost() const { return lost_; }

 private:
  uint64_t asked_ns_ = 0;
  uint64_t period_ns_ = 0;
  uint64_t longest_ns_ = 0;
  uint64_t due_ns_ = 0;
  static constexpr uint32_t kCosts = 8;  // walks a decision looks at
  uint64_t costs_[kCosts] = {};
  uint32_t since_change_ = 0;  // snapshots taken since the last decision (< kCosts)
  uint32_t late_since_change_ = 0;
  uint32_t since_late_ = 0;  // snapshots taken since one was woken late
  uint64_t due_ = 0, late_ = 0, lost_ = 0;
};

}  // namespace quartz::sampler
