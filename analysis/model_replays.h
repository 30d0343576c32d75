// `quartz predict`'s replays: every question (a configuration: a grouping, a changed
// procedure, the recorded one) replayed under every scheduler model, in passes over the
// trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <future>
#include <optional>
#include <unordered_map>
#include <vector>

#include "analysis/prediction_range.h"
#include "analysis/replay.h"
#include "analysis/scheduler_model.h"
#include "analysis/simulation.h"
#include "analysis/wake_latency.h"
#include "profile/open_run.h"
#include "profile/run.h"

namespace quartz::analysis {

// Every question replayed under every model in one pass. What would replay alike twice is
// replayed once: the same question (same_question) under models that replay it alike
// (SchedulerModel::same_as), however it was asked (--cores 1's "all sharing one processor"
// is its one grouping). A what-if is not replayed under the models listed last that count
// in the recorded configuration's range only (recorded_configuration_only).
class ModelReplays {
 public:
  explicit ModelReplays(const std::vector<SchedulerModel>& models);

  // Adds a question under every model that counts in its range (the most likely only, when
  // `likely_only`); returns its number.
  size_t add(const SimulationConfig& c, bool likely_only = false) {
    return add_from(c, 0, likely_only ? 1 : what_if_end_, std::nullopt);
  }
  // Adds the recorded configuration, as it ran: under every model.
  size_t add_recorded(const SimulationConfig& c) {
    return add_from(c, 0, models_.size(), std::nullopt);
  }
  // Adds a question whose most likely figure is known already (a search's candidate) under
  // the other models.
  size_t add_others(const SimulationConfig& c, double likely_s) {
    return add_from(c, 1, what_if_end_, likely_s);
  }
  // The question that asked `c` under every model counting in its range, if one did.
  std::optional<size_t> asked_under_every_model(const SimulationConfig& c) const {
    const auto [begin, end] = every_model_.equal_range(hash_of(c));
    for (auto it = begin; it != end; ++it) {
      if (same_question(configs_[questions_[it->second].slots[0]], c)) return it->second;
    }
    return std::nullopt;
  }
  size_t questions() const { return questions_.size(); }
  // What to replay: a copy, the questions asked later being looked up in these.
  std::vector<SimulationConfig> configs() const { return configs_; }

  const SimulationResult& likely(const ReplayPass& pass, size_t question) const {
    return pass.results[questions_[question].slots[0]];
  }
  // Its range over those, but the models the recording rules out (prediction_range.h) and
  // those that count in the recorded configuration's only.
  PredictionRange range(const ReplayPass& pass, size_t question) const {
    return range_over(seconds(pass, question), left_out_);
  }
  // The recorded configuration's range: over every model the recording does not rule out.
  PredictionRange range_as_recorded(const ReplayPass& pass, size_t question) const {
    return range_over(seconds(pass, question), contradicted_);
  }
  // The models the recording rules out (contradicted_models), by index in the models.
  void leave_out(std::vector<bool> contradicted);
  const std::vector<bool>& contradicted() const { return contradicted_; }
  // The models counting in the recorded configuration's range only.
  const std::vector<bool>& recorded_only() const { return recorded_only_; }
  // ... and with them those counting in the recorded configuration's range only.
  const std::vector<bool>& left_out() const { return left_out_; }
  // The question's predicted seconds under each model replayed for it.
  std::vector<double> seconds(const ReplayPass& pass, size_t question) const {
    const Question& q = questions_[question];
    std::vector<double> out;
    if (q.likely_s) out.push_back(*q.likely_s);
    for (size_t slot : q.slots) out.push_back(pass.results[slot].elapsed_ns / 1e9);
    return out;
  }

 private:
  std::vector<bool> recorded_only_, contradicted_, left_out_;

  struct Question {
    std::vector<size_t> slots;       // a result per model replayed, from the first one
    std::optional<double> likely_s;  // the most likely figure, when known before
  };

  static size_t hash_of(const SimulationConfig& c);
  size_t add_from(const SimulationConfig& c, size_t first, size_t end,
                  std::optional<double> likely_s);
  // The configuration replaying `c` as `model` would, added if none does yet.
  size_t slot_for(const SimulationConfig& c, size_t hash, const SchedulerModel& model, bool pools);

  const std::vector<SchedulerModel>& models_;
  size_t what_if_end_;  // the models after it count in the recorded configuration's range only
  std::vector<SimulationConfig> configs_;
  std::vector<Question> questions_;
  std::unordered_multimap<size_t, size_t> slots_;  // a question's hash: its configurations
  std::unordered_multimap<size_t, size_t>
      every_model_;  // a question's hash: questions asked under every model
};

// Reads the trace once a call, replaying it in every configuration given at the same time
// with the wake-up latency measured (or being measured) from it; counts the time and the
// records of every pass (TraceQuality::seconds, records_per_second).
class TracePasses {
 public:
  TracePasses(const profile::Run& run, const profile::TraceOpener& open,
              const std::shared_future<WakeLatency>& wake)
      : run_(run), open_(open), wake_(wake) {}

  ReplayPass replay(std::vector<SimulationConfig> configs);
  double seconds() const { return seconds_; }
  uint64_t records() const { return records_; }

 private:
  const profile::Run& run_;
  const profile::TraceOpener& open_;
  const std::shared_future<WakeLatency>& wake_;
  double seconds_ = 0;
  uint64_t records_ = 0;
};

// Threads in the run: one more than the largest index.
uint32_t thread_count(const profile::Run& run);
// What the replays take out of the recording: the instrumentation's calibrated costs, or
// the scale to the program's unprofiled run (--baseline).
AssemblerCosts costs_of(const profile::Run& run);

}  // namespace quartz::analysis
