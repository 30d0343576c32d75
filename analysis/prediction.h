// `quartz predict`: what-if predictions from a traced run (DESIGN.md §3 "LBF and CP").
// Reads the trace once for every question asked together (a search over groupings reads
// it once per round), replaying it in as many simulations (simulation.h) at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/critical_path.h"
#include "analysis/prediction_range.h"
#include "analysis/scheduler_model.h"
#include "analysis/wake_latency.h"
#include "profile/open_run.h"
#include "profile/run.h"
#include "profile/trace_reader.h"

namespace quartz::analysis {

class PredictionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PredictionRequest {
  std::vector<std::string> groupings;                   // --group: each its own prediction
  std::vector<uint32_t> search_cores;                   // --cores K
  std::vector<std::string> zero;                        // --zero PROC
  std::vector<std::pair<std::string, double>> speedup;  // --speedup PROC=PCT (PCT in %)
  std::vector<std::string> migrate;                     // --migrate PROC
  bool allow_drops = false;                             // predict from a trace that lost events
  size_t best = 5;                                      // groupings listed per search
  size_t exhaustive_limit = 2000;  // candidates tried at once; more: local search
  // Every answer is replayed under each (scheduler_model.h), the first the most likely.
  std::vector<SchedulerModel> models = default_scheduler_models();
};

struct GroupingPrediction {
  std::string spec;        // "0,1|2,3" (what --placement takes)
  std::string names;       // "main,server | client_0,client_1"
  double predicted_s = 0;  // under the most likely model
  PredictionRange range;   // under every model
  // The task pools it splits over processors (task_pools.h split_pools), replayed balancing
  // themselves; and the most likely figure with each of their threads keeping the tasks it
  // ran, as the recording has them (0: no pool split).
  std::string split_pools;
  double pinned_s = 0;
};

// What a grouping that splits a task pool says of it, as `quartz predict` and the viewer
// show it ("" when it splits none): "consumer 3,4,5 split over processors: replayed with
// whichever is free taking the next task (824.64 ms if each keeps the tasks it ran)".
std::string pool_note(const GroupingPrediction& g);

struct GroupingSearch {
  uint32_t cores = 0;
  bool exhaustive = true;
  uint64_t candidates = 0;  // groupings replayed
  uint32_t rounds = 0;      // passes over the trace
  double shared_s = 0;      // every thread free to run on any of the K processors
  PredictionRange shared_range;
  // Ordered by their most likely figure; searched under the most likely model only, the
  // ranges replayed for these.
  std::vector<GroupingPrediction> best;
};

struct ProcedurePrediction {
  std::string change;     // "zero", "speedup", "migrate"
  std::string procedure;  // as matched
  double percent = 100;   // speedup: time removed, in %
  double predicted_s = 0;
  double unreceived_s = 0;  // migrate: moved time no thread waited for
  PredictionRange range;
  // When the overhead budget turned the procedure's entry off, how far into the run: its
  // time since is its callers' in the trace, which the change then leaves alone.
  std::optional<double> turned_off_s;
};

struct TraceQuality {
  uint64_t events = 0, records = 0, samples = 0, dropped = 0, bytes = 0;
  bool complete = true;
  uint64_t unpaired_waits = 0;  // replayed as delays
  uint64_t forced_waits = 0;    // in the replay of the recorded configuration
  double compensated_s = 0;     // overhead removed from processor time
  // Processor time was scaled by this to the program's own unprofiled run (`quartz run
  // --baseline`, Predictions::profiled_s), in place of the calibrated costs; 1 without one.
  double cpu_scale = 1;
  double wake_latency_s = 0;      // added to each wake-up onto an idle processor (wake_latency.h)
  uint64_t wake_ups = 0;          // wake-ups with a known waker it was measured from
  uint64_t peak_window = 0;       // steps held at once, the largest of all replays
  double seconds = 0;             // time taken to predict
  double records_per_second = 0;  // records replayed per second, all replays of a pass
};

// The recorded configuration replayed with the processors' capacity other processes left
// it: P (1 - other_share) processors, shared (each less the sampler's share). A lone thread
// still runs at the speed of one processor; threads beyond that capacity share it. Only for
// a recording made on a busy machine.
struct LoadedReplay {
  double processors = 0;
  double predicted_s = 0;  // the most likely model's
  PredictionRange range;
};

struct Predictions {
  std::string program;
  uint32_t processors = 1;
  double observed_s = 0;  // the run's elapsed time (profile::Run::elapsed_s), as reported
  // With a --baseline the replays answer for the unprofiled program: observed_s is then
  // its elapsed time, and this the profiled run's (0: no baseline, the calibrated costs
  // were taken out).
  double profiled_s = 0;
  // The replay of the recorded configuration as it ran, each processor less the sampler's
  // share and a quiet machine's other processes' (the model's check, against observed_s).
  double recorded_s = 0;
  PredictionRange recorded_range;  // ... under every model
  std::vector<ModelCheck> models;  // in the order of every range's by_model_s
  // Of each processor's time during the recording, the share the sampler took (0 with a
  // --baseline, whose unprofiled run had none).
  double sampler_share = 0;
  // The recorded configuration with the processors to the program alone: what every
  // what-if is compared with, as every what-if is replayed so.
  double base_s = 0;
  // Of the program's processors' time during the recording, the share other processes
  // took (none: not measured). The check leaves it to them on a quiet machine
  // (quiet_other_share), Predictions::loaded on a busy one.
  std::optional<double> other_share;
  std::optional<LoadedReplay> loaded;  // when other_share says the machine was busy
  CriticalPath critical_path;
  std::vector<GroupingPrediction> groupings;
  std::vector<GroupingSearch> searches;
  std::vector<ProcedurePrediction> procedures;
  TraceQuality quality;
};

// Whether other processes took more than 5% of the processors' time during the recording
// (more than the noise of ticks): its replay on the capacity they left is then
// Predictions::loaded, and a trust warning says so (trust_warnings.h).
bool recorded_busy(const Predictions& p);

// Of each processor's time, the share other processes took that the check's replay leaves
// them, as it does the sampler's: a quiet machine's (a busy machine's are replayed by
// Predictions::loaded); none with a --baseline, whose unprofiled run they were not measured in.
double quiet_other_share(const Predictions& p);

// Of several groupings, the fastest by its most likely figure, and the others whose ranges
// reach its range (prediction_range.h): it is the best only when there are none.
struct BestGrouping {
  size_t best = 0;
  std::vector<size_t> tied;  // indices of the groupings it is not told apart from
};
BestGrouping best_grouping(const std::vector<GroupingPrediction>& groupings);

// Opens the run's trace from its start (called once per pass).
using TraceOpener = profile::TraceOpener;

// Throws PredictionError for a question that cannot be asked of this run (an unknown
// procedure, a bad grouping, a trace that lost events without allow_drops); TraceError
// for a damaged trace.
Predictions predict(const profile::Run& run, const TraceOpener& open,
                    const PredictionRequest& request);

// The pass that measures the wake-up latency (wake_latency.h), on a thread of its own from
// the trace's start. It reads only the trace: `quartz predict` starts it before it reads
// the run. Destroyed before its end (an error), it stops at its next chunk.
class WakeLatencyPass {
 public:
  explicit WakeLatencyPass(const TraceOpener& open);
  ~WakeLatencyPass() { stop_->store(true); }
  WakeLatencyPass(const WakeLatencyPass&) = delete;
  WakeLatencyPass& operator=(const WakeLatencyPass&) = delete;
  const std::shared_future<WakeLatency>& result() const { return result_; }

 private:
  std::shared_ptr<std::atomic<bool>> stop_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_future<WakeLatency> result_;
};

// predict, with that pass started already.
Predictions predict(const profile::Run& run, const TraceOpener& open,
                    const PredictionRequest& request, const WakeLatencyPass& wake);

}  // namespace quartz::analysis
