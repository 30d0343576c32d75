// Figures every run must have, whatever the program (issue 9 item 3): checked against the
// run's own clocks, so any end-to-end test can ask them of the capture it got.
#pragma once

#include "profile/run.h"

namespace quartz::test {

// Fails the current test where a figure is impossible:
//   - a negative or NaN figure in any record (program, threads, procedures, objects, contexts);
//   - the program's normalized time, by processors busy (the parallelism histogram), not
//     adding up to the elapsed time;
//   - normalized time above processor time with one or more processors busy, in any record;
//   - an object with as many threads waiting for it as the run had threads (one holds it);
//   - a thread's state times not adding up to its lifetime (created to exited, or to the
//     run's end), within one sampling period; its busy or processor time above its lifetime.
void expect_possible_figures(const profile::Run& run);

}  // namespace quartz::test
