// The properties of synchronization: threads waiting for an object its holders serialise
// them on (lock contention), or spinning for it while others could have run (spin waste).
#include "analysis/diagnosis_properties.h"
#include "analysis/text_format.h"

namespace quartz::analysis::diagnosis {

using text::seconds;

namespace {

bool is_lock(uint32_t kind) {
  return kind == capture::kMutex || kind == capture::kRwlockRead || kind == capture::kRwlockWrite ||
         kind == capture::kSpinlock || kind == capture::kOmpCritical || kind == capture::kOmpLock;
}

}  // namespace

// Lock contention: the object's normalized time (its holders' work and what ran on its
// behalf) weighted by the share of acquisitions that had to wait.
void lock_contention(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  for (const LockRow& lock : view.locks) {
    if (!is_lock(lock.kind) || lock.acquisitions == 0 || lock.contended == 0) continue;
    const double contended = static_cast<double>(lock.contended) / lock.acquisitions;
    Finding f;
    f.property = Property::lock_contention;
    f.severity = clamp01(lock.totals.normalized_s * contended / view.elapsed_s);
    f.confidence = confidence(view, lock.totals.normalized_s, overhead);
    f.subject = lock.name;
    f.evidence = text::format("%.0f%%", 100 * contended) + " of " +
                 std::to_string(lock.acquisitions) + " acquisitions waited; " +
                 seconds(lock.wait_s) + " waiting, " + seconds(lock.hold_s) + " held; " +
                 text::format("%.2f", lock.mean_queue) + " threads waiting on average" +
                 (lock.mean_queue >= 1.5 ? " (a convoy)" : "");
    f.advice = lock.kind == capture::kSpinlock
                   ? "shorten the critical section, or split the lock"
                   : "shorten the critical section (move work out of it), or split the data "
                     "it protects under several locks";
    out.push_back(f);
  }
}

// Spin waste: thread-time spinning while more threads were runnable than processors, time
// a runnable thread could have used: severity = that / (P elapsed).
void spin_waste(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  const auto& bins = view.program_totals.runnable_s;
  if (bins.size() <= capture::kSpinning) return;
  double over_s = 0;
  for (size_t k = view.processors + 1; k < bins[capture::kSpinning].size(); ++k) {
    over_s += bins[capture::kSpinning][k];
  }
  const LockRow* spun = nullptr;
  for (const LockRow& lock : view.locks) {
    if (lock.wait_spinning_s > 0 && (!spun || lock.wait_spinning_s > spun->wait_spinning_s)) {
      spun = &lock;
    }
  }
  Finding f;
  f.property = Property::spin_waste;
  f.severity = clamp01(over_s / (view.processors * view.elapsed_s));
  f.confidence = confidence(view, over_s, overhead);
  f.subject = spun ? spun->name : "the program";
  f.evidence = seconds(over_s) + " of thread-time spinning while more threads were runnable " +
               "than the " + std::to_string(view.processors) + " processors";
  f.advice =
      "block instead of spinning (a mutex or condition variable), or run no more "
      "threads than processors";
  out.push_back(f);
}

// Contention on a spin lock whose spinning is the spin waste is one problem, and blocking
// instead cures both: one finding, spin waste, with the larger severity and both evidences.
void merge_spinning_contention(const ProfileView& view, std::vector<Finding>& all) {
  auto spin = std::find_if(all.begin(), all.end(),
                           [](const Finding& f) { return f.property == Property::spin_waste; });
  if (spin == all.end()) return;
  for (auto f = all.begin(); f != all.end(); ++f) {
    if (f->property != Property::lock_contention || f->subject != spin->subject) continue;
    const bool spin_lock = std::any_of(view.locks.begin(), view.locks.end(), [&](const LockRow& l) {
      return l.name == f->subject && l.kind == capture::kSpinlock;
    });
    if (!spin_lock || spin->severity <= 0) continue;
    spin->severity = std::max(spin->severity, f->severity);
    spin->confidence = std::max(spin->confidence, f->confidence);
    spin->evidence += "; " + f->evidence;
    all.erase(f);
    return;
  }
}

}  // namespace quartz::analysis::diagnosis
