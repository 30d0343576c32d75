// Where the time of the runtime's calls goes (docs/design.md "Call overhead").
//
// Every call the runtime sees costs it a calibrated c ns (the run key hook_pair_ns: a
// patched entry's trampolines, or the compiler's pair of hooks). The sampler cannot tell
// that time from the program's: it takes the calls' cost out of each thread's processor time
// in proportion to the time it sampled, and records what it took from each calling context
// (ContextRecord::call_cost). But the cost is paid where the calls are: through patched
// entries in the caller (runtime/patched_entry.h, kPatchedCallCalleeShare); with the
// compiler's hooks, half there and half in the procedure called. Proportional removal leaves
// a procedure that calls often with its calls' cost, and takes from one that does much per
// call time that was its own: on xz, the procedure perf gives 60% of the time got 48% with
// every entry on.
//
// This puts the cost where it falls. A context keeps its time as measured (what the sampler
// left plus what it took), less its share of its procedure's calls' cost (calls x c on the
// caller's or callee's side, shared among the procedure's contexts by their measured time);
// the program's histogram of processor time is then scaled back, bin by bin, to what the
// sampler measured. What a context gains or loses goes to the procedures and objects on its
// path (on behalf) and to its leaf procedure (self), as the sampler charges a sample. Per
// context, not per procedure: a thread that calls little keeps its own time.
#pragma once

#include "profile/run.h"

namespace quartz::profile {

// Applied once to a run as read (capture or store); a capture from before the sampler
// recorded each context's call cost is left as it is.
void place_call_overhead(Run& run);

}  // namespace quartz::profile
