#include "sampler/measure/period.h"

namespace quartz::sampler {
namespace {

// The cost's moving average weighs the last snapshot this much: one walk slowed by a
// preemption or a burst of new threads does not double the period.
constexpr double kCostWeight = 1.0 / 8;
// Snapshots between two changes of the period, so that the average has seen the new one.
constexpr uint32_t kSnapshotsPerChange = 8;
// More than one snapshot lost in this many taken lengthens the period too: the sampler does
// not get a processor that often (refused real time among many runnable threads).
constexpr uint32_t kLossesPerDue = 8;
// Snapshots without a loss before a period lengthened for losses is tried shorter again.
constexpr uint32_t kQuietToShorten = 64;

}  // namespace

void Schedule::start(uint64_t period_ns, uint64_t now) {
  *this = Schedule{};
  asked_ns_ = period_ns_ = longest_ns_ = period_ns;
  due_ns_ = now + period_ns;
}

void Schedule::taken(uint64_t taken_ns, uint64_t cost_ns, uint64_t now) {
  ++due_;
  ++since_loss_;
  if (taken_ns > due_ns_ + period_ns_ / 2) ++late_;
  const double cost = static_cast<double>(cost_ns);
  cost_ns_ = cost_ns_ < 0 ? cost : cost_ns_ + kCostWeight * (cost - cost_ns_);
  const double period = static_cast<double>(period_ns_);
  if (++since_change_ >= kSnapshotsPerChange) {
    const bool losing = lost_since_change_ * kLossesPerDue > since_change_;
    const uint64_t longest = asked_ns_ * kMaxLengthening;
    if ((cost_ns_ > kCostShare * period || losing) && period_ns_ < longest) {
      // As far as the cost asks at once: a run's first second is when its threads start.
      do {
        period_ns_ *= 2;
      } while (cost_ns_ > kCostShare * static_cast<double>(period_ns_) && period_ns_ < longest);
      since_change_ = lost_since_change_ = 0;
    } else if (cost_ns_ < kCostShare / 4 * period && since_loss_ >= kQuietToShorten &&
               period_ns_ > asked_ns_) {
      period_ns_ /= 2;
      since_change_ = 0;
    }
    if (period_ns_ > longest_ns_) longest_ns_ = period_ns_;
  }
  due_ns_ += period_ns_;
  if (due_ns_ <= now) {
    const uint64_t missed = (now - due_ns_) / period_ns_ + 1;
    lost_ += missed;
    due_ += missed;
    lost_since_change_ += static_cast<uint32_t>(missed);
    since_loss_ = 0;
    due_ns_ = now + period_ns_;
  }
}

}  // namespace quartz::sampler
