// How the kernel schedules the replayed threads: what the trace does not say (DESIGN.md §3
// "LBF and CP"), so every question is replayed under a few plausible models and answered
// with the range they give (prediction_range.h). docs/design.md "Scheduler models" says
// what each model is and why it is in the set.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace quartz::analysis {

// How one processor is divided among the threads ready to run on it.
enum class Sharing : uint8_t {
  fair,    // all progress at once, each at 1/n (generalised processor sharing)
  slices,  // one at a time, in turns of `slice_ns` (round robin)
};

struct SchedulerModel {
  std::string name = "fair";  // as scheduler_models_named() takes it
  Sharing sharing = Sharing::fair;
  double slice_ns = 2e6;       // slices: a turn (Linux's observed here: 2 ms)
  bool wake_preempts = true;   // slices: a woken thread runs at once, the one it displaced next
  bool wake_to_idle = true;    // pools: a woken thread whose processor is busy takes an idle one
  bool pull_when_idle = true;  // pools: a processor going idle takes a waiting thread at once
  bool wake_latency = true;    // a wake-up onto an idle processor takes the measured latency
  bool recorded_lock_order = true;  // mutexes go in the recorded order, else to who asks first
                                    // while they are free (a woken waiter retries, may lose)

  // Whether two models replay a configuration alike: where every group has one processor,
  // placement and balancing (wake_to_idle, pull_when_idle) do not arise.
  bool same_as(const SchedulerModel& other, bool pools) const;
};

// The models `quartz predict` replays unless told otherwise, the most likely first (its
// figure is the one a single number would be); docs/design.md says why these. The last,
// `fair`, keeps the recorded lock order: it replays the recorded configuration only
// (recorded_configuration_only).
inline constexpr const char* kDefaultSchedulerModels =
    "barging,fair+wake_to_last+no_pull+barging,turns+instant_wake+barging,"
    "run_to_block+instant_wake+wake_to_last+no_pull+barging,fair";
std::vector<SchedulerModel> default_scheduler_models();

// The models that keep the recorded lock order while the most likely one barges. That order
// is the recording's own: it holds where the threads run as recorded, and such a model
// counts in the recorded configuration's range only. Any other configuration changes who
// asks first, and glibc's mutexes go to whoever asks while they are free.
std::vector<bool> recorded_configuration_only(const std::vector<SchedulerModel>& models);

// Models by name, separated by commas, in the order given (the first is then the most
// likely): a way of sharing a processor, "fair" (the default), "slices" (turns, a woken
// thread preempting), "turns" (turns, a woken thread waiting its own) or "run_to_block"
// (turns of 100 ms), then any of "instant_wake", "wake_to_last", "no_pull", "barging", each
// after a "+" ("slices+barging"; a lone modifier is fair's: "barging"). Throws
// std::invalid_argument naming what it does not know.
std::vector<SchedulerModel> scheduler_models_named(const std::string& names);

// The parts of the scheduler in which two models differ, as docs/design.md "Scheduler
// models" names them ("sharing a processor, who gets a free mutex"); empty when alike.
std::string model_differences(const SchedulerModel& a, const SchedulerModel& b);

// What each name scheduler_models_named() takes means, one line each.
std::string scheduler_model_names_help();

}  // namespace quartz::analysis
