#include "sampler/measure/period.h"

namespace quartz::sampler {
namespace {

// More than one wake-up late in this many lengthens the period too: the sampler does not get
// a processor that often (refused real time among many runnable threads). Snapshots lost
// to the sampler's own work (a publication of 125,000 objects) do not: that work keeps a
// budget of its own.
constexpr uint32_t kLatePerDue = 8;
// Snapshots without a late wake-up before a period lengthened for them is tried shorter.
constexpr uint32_t kQuietToShorten = 64;

}  // namespace

void Schedule::start(uint64_t period_ns, uint64_t now) {
  *this = Schedule{};
  asked_ns_ = period_ns_ = longest_ns_ = period_ns;
  due_ns_ = now + period_ns;
}

void Schedule::taken(uint64_t taken_ns, uint64_t cost_ns, uint64_t now) {
  ++due_;
  ++since_late_;
  if (taken_ns > due_ns_ + period_ns_ / 2) {
    ++late_;
    ++late_since_change_;
    since_late_ = 0;
  }
  costs_[since_change_] = cost_ns;
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
    const bool losing = late_since_change_ * kLatePerDue > since_change_;
    const uint64_t longest = asked_ns_ * kMaxLengthening;
    if ((static_cast<double>(least) > kCostShare * period || losing) && period_ns_ < longest) {
      do {
        period_ns_ *= 2;
      } while (static_cast<double>(least) > kCostShare * static_cast<double>(period_ns_) &&
               period_ns_ < longest);
    } else if (static_cast<double>(most) < kCostShare / 4 * period &&
               since_late_ >= kQuietToShorten && period_ns_ > asked_ns_) {
      period_ns_ /= 2;
    }
    since_change_ = late_since_change_ = 0;
    if (period_ns_ > longest_ns_) longest_ns_ = period_ns_;
  }
  due_ns_ += period_ns_;
  if (due_ns_ <= now) {
    const uint64_t missed = (now - due_ns_) / period_ns_ + 1;
    lost_ += missed;
    due_ += missed;
    due_ns_ = now + period_ns_;
  }
}

}  // namespace quartz::sampler
