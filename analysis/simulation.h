// Replays a trace's steps (trace_steps.h) under another configuration and predicts the
// elapsed time (DESIGN.md §3 "LBF and CP"; Eom & Hollingsworth's process LBF):
//   - threads are grouped, each group runs on its own processors (usually one); threads
//     that share a processor get equal shares of it (a round-robin scheduler with an
//     infinitely small quantum), or take turns of a few ms (the model, scheduler_model.h,
//     says which); a thread spinning for a lock counts. In a group of K
//     processors (the recorded configuration: all threads on P) each thread runs on one
//     of them and stays there, placed and balanced as Linux does: a woken thread goes back
//     to its processor if idle, else to an idle one, else to the least loaded; an idle
//     processor takes a thread from a busy one (simulation_processors.cpp says when; the
//     model may keep woken threads on their own processor, or idle ones from pulling at once);
//   - every synchronization step waits for the step of another thread it followed in the
//     recording (the release before an acquisition, the signal before a wake, the post a
//     semaphore wait consumed, the last arrival at a barrier, a thread's exit before its
//     join, its creation before its start), so the observed order of lock acquisitions is
//     kept; or, in a model that does not keep it, a mutex goes to whoever asks while it is
//     free;
//   - a procedure can be made faster (or free), or its time moved to the thread that waits
//     for the signal or post following it (procedure LBF).
// One pass, as the trace is read: the simulation advances until some thread's next step
// has not been read yet, and holds only the steps read but not yet replayed.
// With every thread on a processor of its own, the predicted time is the length of the
// critical path, whose composition (threads, procedures, locks) it can keep.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/scheduler_model.h"
#include "analysis/trace_steps.h"

namespace quartz::analysis {

struct SimulationConfig {
  // Group of each thread, by thread index; a thread past the end gets a group of its own.
  std::vector<uint32_t> group_of_thread;
  std::vector<double> cores;  // processors of each group
  // The share of each processor the program's threads get: less than 1 to replay a run as
  // it was recorded, beside the sampler and other processes.
  double capacity = 1;
  // A procedure change: `in_procedure[c]` says the procedure is on context c's path.
  std::vector<uint8_t> in_procedure;
  double speedup = 0;          // fraction of the procedure's time removed (1: zeroed)
  bool migrate = false;        // its time moves to the thread woken by the next signal or post
  bool critical_path = false;  // keep what the longest path is made of
  // How long a thread woken from a blocking wait takes to run on a processor that was idle
  // (wake_latency.h); a processor already running switches at once. Only where the model
  // says wake-ups take it.
  double wake_latency_ns = 0;
  // How processors are shared and threads placed on them, and who gets a free mutex.
  SchedulerModel model;
};

// Whether two configurations ask the same question, their scheduler models aside (all on
// one processor is both "every thread sharing 1" and "one group of all").
bool same_question(const SimulationConfig& a, const SimulationConfig& b);

// Every thread on a processor of its own (the critical path).
SimulationConfig threads_apart(uint32_t threads);
// Every thread free to run on any of `cores` processors.
SimulationConfig threads_sharing(uint32_t threads, double cores);
// group_of[thread] = its group; each group one processor.
SimulationConfig threads_grouped(const std::vector<uint32_t>& group_of);

// What the longest path (the predicted timeline's binding chain) was made of.
struct PathComposition {
  std::vector<double> thread_ns;                    // by thread index
  std::unordered_map<uint32_t, double> context_ns;  // processor time, by calling context
  std::unordered_map<uint64_t, double> lock_ns;     // time holding a lock, by object
  double cpu_ns = 0, delay_ns = 0;
};

struct SimulationResult {
  double elapsed_ns = 0;  // predicted: the program's end (or its last thread's)
  std::vector<double> thread_end_ns;
  uint64_t steps = 0;
  uint64_t forced_waits = 0;                    // waits whose partner never came, released to go on
  double migrated_unreceived_ns = 0;            // moved time whose signal nobody waited for
  uint64_t peak_window = 0;                     // steps read but not yet replayed, at most
  std::shared_ptr<const PathComposition> path;  // when critical_path was asked
};

class Simulation {
 public:
  // `attributions`: where work steps' time belongs (StepAssembler::attributions).
  Simulation(SimulationConfig config, std::vector<StepLog>& logs,
             const std::vector<Attribution>& attributions);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Replays as far as the steps read so far allow; true once every thread has finished
  // and every log has ended.
  bool advance();
  // The first step of thread `index` this simulation may still read.
  uint64_t position(uint32_t index) const;
  SimulationResult result() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace quartz::analysis
