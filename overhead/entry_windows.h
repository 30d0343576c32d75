// Windows on the procedures whose entries the overhead budget turned off (docs/design.md
// "Overhead budget"). Every few snapshots the sampler turns those entries back on for a
// moment: the stacks it reads then show the procedures again, and what it learns there
// charges the other snapshots, where a turned-off procedure's time would be its caller's.
//
// A window opens shortly before a snapshot and closes after it. The turned-off procedures
// are the ones that do least per call, so a call begun in the window is on the stack when
// it is read. While it is open the sampler reads the stacks of the busy threads a few times
// more (a read costs tens of ns); each read whose leaf is a procedure counts for its calling
// context. A context read in a window, with the turned-off procedures taken out of it, is the
// context a snapshot outside the windows reads for the same work: a sample there is charged
// across the contexts the windows found under its own, in proportion to how often each was
// read (and to itself as often as the windows found the thread in it).
#pragma once

#include <cstdint>

#include "overhead/overhead_budget.h"
#include "sampler/attribution.h"
#include "sampler/tables.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class EntryWindows {
 public:
  // Windows open before every kEvery-th snapshot; while one is open the sampler reads the
  // stacks a few times more (OverheadControl::kWindowReads). The entries are on for ~3% of
  // the run; a read costs tens of ns a thread.
  static constexpr uint32_t kEvery = 8;

  // `max_contexts`: the tables' limit. False without memory (no window then).
  QUARTZ_NOINSTR bool init(uint32_t max_contexts);
  // True when the budget has turned entries off (and windows can be opened).
  QUARTZ_NOINSTR bool entries_off(const OverheadBudget& budget) const {
    return ready_ && budget.entries_off() != 0;
  }
  // True when a window is due before snapshot number `snapshot`.
  QUARTZ_NOINSTR bool due(const OverheadBudget& budget, uint64_t snapshot) const {
    return snapshot % kEvery == 0 && entries_off(budget);
  }
  // Turns the entries the budget turned off on again, and off (and tells the budget, which
  // measures the program's processor time in between: OverheadBudget::window_opened).
  QUARTZ_NOINSTR void open(OverheadBudget& budget);
  QUARTZ_NOINSTR void close(OverheadBudget& budget);
  // A stack read in the window whose leaf is `context`, a procedure's.
  QUARTZ_NOINSTR void learn(uint32_t context);
  // After a window: what the reads found becomes the parts samples are charged across. A
  // read in a context counts less by the share of its procedure's time its calls cost while
  // the entries were on (OverheadBudget::call_share): outside the windows nobody pays it.
  QUARTZ_NOINSTR void update(ProfileTables& tables, const OverheadBudget& budget);

  // What samples taken while entries were off are charged across, as of the last update.
  QUARTZ_NOINSTR HiddenParts parts() const { return HiddenParts{parts_.data(), parts_.size()}; }

  QUARTZ_NOINSTR uint64_t windows() const { return windows_; }
  QUARTZ_NOINSTR uint64_t reads() const { return reads_; }

 private:
  // `context` with the turned-off procedures taken out of its path.
  QUARTZ_NOINSTR uint32_t without_off(ProfileTables& tables, uint32_t context) const;
  QUARTZ_NOINSTR bool is_off(uintptr_t procedure) const;

  bool ready_ = false;
  uint64_t windows_ = 0;
  uint64_t reads_ = 0;
  size_t decided_ = 0;                       // the budget's decisions off_ was built from
  support::MappedVector<uintptr_t> off_;     // procedures, sorted
  support::MappedVector<uintptr_t> sleds_;   // their entries, sorted
  support::MappedVector<uint32_t> seen_;     // per context: reads with it as leaf
  support::MappedVector<uint32_t> hidden_;   // per context: its key + 1 (0: not found yet)
  support::MappedVector<uint32_t> learned_;  // contexts with seen_ > 0
  support::MappedVector<HiddenPart> parts_;  // by read, then context
};

}  // namespace quartz::sampler
