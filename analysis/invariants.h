// Figures every run must have, whatever the program (issue 9 item 3), checked against the
// run's own clocks. One definition for `quartz check`, the end-to-end tests
// (tests/e2e/invariants.h) and the real-program suite (bench/real_programs.py).
#pragma once

#include <string>
#include <vector>

#include "profile/run.h"

namespace quartz::analysis {

// Each figure of `run` that cannot be, one line of text each (empty: none):
//   - an elapsed time not above zero;
//   - a negative or NaN figure in any record (program, threads, procedures, objects, contexts);
//   - the program's normalized time, by processors busy (the parallelism bins), not adding
//     up to the elapsed time;
//   - normalized time above processor time with one or more processors busy, in any record;
//   - an object, of any kind, with as many threads waiting for it as the run had threads (one
//     holds it, is the barrier's last arrival, or the thread joined);
//   - a thread's state times not adding up to its lifetime (created to exited, or to the
//     run's end), within one sampling period; its busy or processor time above its lifetime;
//   - starvation (capture_format.h kStarved*) above the processors' time, the threads'
//     charges adding up to more, or a context's starved part above its time with one
//     processor busy.
std::vector<std::string> invariant_violations(const profile::Run& run);

}  // namespace quartz::analysis
