// The report's ranked tables, one row a procedure, synchronization object or thread, each
// with its totals (self plus work on its behalf); and what the findings sum from the
// calling contexts per procedure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

// A record's totals: self plus work on its behalf, unless named *_self.
struct Totals {
  double normalized_s = 0, normalized_self_s = 0;
  double processor_s = 0, processor_self_s = 0;
  std::vector<double> histogram_s;              // normalized time by processors busy, 0..P
  std::vector<double> histogram_self_s;         // the self part of it
  profile::States state_s{};                    // elapsed thread-time per state, self + behalf
  profile::States mean_runnable{};              // mean runnable threads while in each state
  std::vector<std::vector<double>> runnable_s;  // [state][k]: time with k runnable threads
};

// A procedure's own time with one processor busy, in its contexts outside held objects
// (where a serial bottleneck's findings look, diagnosis.h): summed from the calling
// contexts when the view is made, so that a view without their rows finds the same.
struct OneBusyTime {
  double serial_s = 0;  // with the other processors idle for want of it
  // ... with no thread at work to run on them: start-up or wind-down starvation, not a
  // serial bottleneck (profile::ContextStates::one_busy_starved)
  double starved_s = 0;
  // ... while the program's other threads were ready for them (taken by other processes,
  // or being woken): not a serial bottleneck either (one_busy_taken)
  double taken_s = 0;
  // ... while the others' threads waited for it at a team's barrier (one_busy_waited): the
  // team's load imbalance
  double waited_s = 0;
};

struct ProcedureRow {
  uint64_t address = 0;
  std::string name;      // demangled function, or the address
  std::string location;  // file:line, or the module
  uint64_t calls = 0;
  Totals totals;
  OneBusyTime one_busy;
};

// The procedure context that spent longest spinning or blocked at itself (a finding names
// it), summed like OneBusyTime.
struct LongestWait {
  std::string name;
  double wait_s = 0;
};

struct LockRow {
  uint32_t id = 0;  // ObjectInfo::id
  uint64_t address = 0;
  std::string name;  // object_names()
  uint32_t kind = capture::kMutex;
  double wait_s = 0, wait_spinning_s = 0, wait_blocked_s = 0, hold_s = 0;
  uint64_t acquisitions = 0, contended = 0, posts = 0;
  double mean_wait_s = 0;  // exact, per contended acquisition, where the runtime timed it
  double mean_queue = 0;   // threads waiting, on average, while it was in use
  std::vector<double> queue_s;
  Totals totals;
};

struct ThreadRow {
  uint32_t index = 0;
  uint32_t parent = capture::kNoParent;
  // The name the program gave it; else its routine's bare name (cxx_names.h); else the
  // name it inherited (the main thread's: the program's).
  std::string name;
  bool named = false;            // the program named it
  std::string routine;           // the program's own procedure it started in (full name), or ""
  uint64_t routine_address = 0;  // its address; 0 when none is known
  // The first of the program's procedures it entered below its routine (its role, where one
  // routine starts threads that do different work: lbzip2's thread_entry a worker or the
  // muxer); "" and 0 when none is known.
  std::string role;
  uint64_t role_address = 0;
  // What tables show: the name, and the role where the program did not name the thread and
  // another thread of its routine has another role ("thread_entry (worker)").
  std::string label;

  double busy_s = 0, spinning_s = 0, blocked_s = 0, ready_s = 0;
  double start_s = 0;     // its creation, since the run's start
  double lifetime_s = 0;  // from its creation to its end, or to the run's
  double cpu_s = 0;
  uint64_t calls = 0;
  Totals totals;
  // Processor time idle for want of threads at work while it ran (its share), before and
  // after the program first had P threads at work (Starvation).
  double starved_startup_s = 0, starved_later_s = 0;
};

// The totals of `r`, its histograms of the run's shape (an empty record is all zero).
Totals totals_of(const profile::FullRecord& r, const profile::Run& run);

// Procedures and objects by normalized time, descending; threads by index.
std::vector<ProcedureRow> procedure_rows(const profile::Run& run);
std::vector<LockRow> lock_rows(const profile::Run& run);
std::vector<ThreadRow> thread_rows(const profile::Run& run);

// Fills each procedure's OneBusyTime and the LongestWait from the run's calling contexts.
void sum_context_findings(const profile::Run& run, std::vector<ProcedureRow>& procedures,
                          LongestWait& longest_wait);

}  // namespace quartz::analysis
