#include "sampler/measure/period.h"

namespace quartz::sampler {
namespace {

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
  costs_[since_change_ % kCosts] = cost_ns;
  if (++since_change_ >= kCosts) {
    // The walk's steady cost is the least of the last few: the first walks touch new pages
    // and intern new contexts, and any walk may be preempted; a spike must not lengthen
    // the period for seconds. It is short again when even the most costly is cheap.
    uint64_t least = costs_[0], most = costs_[0];
    for (uint64_t c : costs_) {
      least = c < least ? c : least;
      most = c > most ? c : most;
    }
    const double period = static_cast<double>(period_ns_);
    const bool losing = lost_since_change_ * kLossesPerDue > since_change_;
    const uint64_t longest = asked_ns_ * kMaxLengthening;
    if ((static_cast<double>(least) > kCostShare * period || losing) && period_ns_ < longest) {
      do {
        period_ns_ *= 2;
      } while (static_cast<double>(least) > kCostShare * static_cast<double>(period_ns_) &&
               period_ns_ < longest);
      since_change_ = lost_since_change_ = 0;
    } else if (static_cast<double>(most) < kCostShare / 4 * period &&
               since_loss_ >= kQuietToShorten && period_ns_ > asked_ns_) {
      period_ns_ /= 2;
      since_change_ = lost_since_change_ = 0;
    } else {
      since_change_ = 0;
      lost_since_change_ = 0;
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
