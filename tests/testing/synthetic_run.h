// Runs with known numbers for the viewer's tests and benchmark, built as profile::Run
// values (as a capture or the store gives them): a small one whose calling-context tree,
// procedures, objects and threads the tests know by heart, and a large one of any number
// of contexts. Procedure, object and program records are derived from the contexts the
// way the sampler charges them (each distinct entry on a context's path: the top as self,
// the others on its behalf), so the numbers are consistent across views. Compiled once,
// as the library quartz_synthetic_run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/prediction.h"
#include "profile/run.h"
#include "viewer/loading/run_data.h"

namespace quartz::viewer::test {

inline constexpr uint64_t kMain = 0x401000, kWorker = 0x401100, kSolve = 0x401200,
                          kRelax = 0x401300, kLog = 0x401400;
inline constexpr uint64_t kQueueLock = 0x7f0000a000, kPhaseBarrier = 0x7f0000a100;

// P = 2. main runs log_message and a serial solve, and starts two workers that solve in
// parallel under a queue lock and meet at a barrier. Elapsed 861 ms.
//   <program>                     861 ms
//     main          self  10 ms   861 ms
//       worker                    671 ms   (2 calls)
//         solve     self 250 ms   670 ms   (40)
//           relax   self 320 ms   320 ms   (400)
//           queue lock (mutex)    100 ms
//         phase barrier (barrier)   1 ms
//       log_message self 100 ms   100 ms   (1000)
//       solve       self  30 ms    80 ms   (1)
//         relax     self  50 ms    50 ms   (400)
profile::Run small_run();

// A calling-context tree of `contexts` nodes, each with four children (depth about
// log4 n), over 2000 procedures and 50 mutexes (every 97th context holds one). P = 4.
profile::Run large_run(size_t contexts);

// The run analysed, as the viewer loads it.
std::shared_ptr<const RunData> analyzed(profile::Run run, std::string label = "synthetic run");

// Predictions for small_run() whose numbers the tests know: a grouping, a search onto one
// processor, and each procedure change.
analysis::Predictions small_predictions();

// small_run() as a run of a store with a trace and stored predictions (oldest first, as the
// store lists them): `stored` JSON texts with their questions.
std::shared_ptr<const RunData> with_what_ifs(const std::vector<profile::StoredPrediction>& stored,
                                             bool has_trace = true);

}  // namespace quartz::viewer::test
