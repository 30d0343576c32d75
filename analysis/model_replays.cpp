#include "analysis/model_replays.h"

#include <algorithm>
#include <functional>
#include <string_view>

#include "analysis/run_quality.h"

namespace quartz::analysis {

uint32_t thread_count(const profile::Run& run) {
  uint32_t n = 0;
  for (const auto& t : run.threads) n = std::max(n, t.index + 1);
  return n;
}

AssemblerCosts costs_of(const profile::Run& run) {
  AssemblerCosts c;
  c.trace_event_ns = run.number(capture::run_keys::kTraceEventNs);
  c.hook_event_ns = run.number(capture::run_keys::kHookPairNs) / 2;
  c.cpu_read_ns = run.number(capture::run_keys::kTraceCpuReadNs);
  c.run_queue_measured = run.text(capture::run_keys::kCpuMeasurement) == "schedstat";
  // The instrumentation's real cost is not its calibrated calls': the sampler's reads pull
  // the profile stacks' lines away, a hot entry's calls push the program's code out of the
  // caches, and the processor overlaps a call with the work around it (the calls of
  // ACallHeavyProgramIsPredictedAsThePlainProgramRuns cost 4 ns each, not the calibrated
  // 13). The program's own unprofiled run measures it: every step's processor time is
  // scaled to it, in place of the calibrated costs.
  if (const std::optional<Baseline> b = baseline_of(run)) {
    c.cpu_scale = b->cpu_s / b->profiled_cpu_s;
    c.trace_event_ns = c.hook_event_ns = c.cpu_read_ns = 0;
  }
  return c;
}

size_t ModelReplays::hash_of(const SimulationConfig& c) {
  size_t h = std::hash<std::string_view>{}(std::string_view(
      reinterpret_cast<const char*>(c.group_of_thread.data()), c.group_of_thread.size() * 4));
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (double cores : c.cores) mix(std::hash<double>{}(cores));
  mix(std::hash<double>{}(c.capacity));
  mix(std::hash<std::string_view>{}(std::string_view(
      reinterpret_cast<const char*>(c.in_procedure.data()), c.in_procedure.size())));
  mix(std::hash<double>{}(c.speedup));
  mix(static_cast<size_t>(c.migrate) | static_cast<size_t>(c.critical_path) << 1);
  return h;
}

ModelReplays::ModelReplays(const std::vector<SchedulerModel>& models)
    : recorded_only_(recorded_configuration_only(models)),
      left_out_(recorded_only_),
      models_(models),
      what_if_end_(models.size()) {
  while (what_if_end_ > 1 && recorded_only_[what_if_end_ - 1]) --what_if_end_;
}

void ModelReplays::leave_out(std::vector<bool> contradicted) {
  contradicted_ = std::move(contradicted);
  left_out_ = recorded_only_;
  for (size_t m = 0; m < contradicted_.size() && m < left_out_.size(); ++m) {
    left_out_[m] = left_out_[m] || contradicted_[m];
  }
}

size_t ModelReplays::add_from(const SimulationConfig& c, size_t first, size_t end,
                              std::optional<double> likely_s) {
  const bool pools =
      std::any_of(c.cores.begin(), c.cores.end(), [](double cores) { return cores >= 2; });
  const size_t hash = hash_of(c);
  Question q{{}, likely_s};
  for (size_t m = first; m < end; ++m) q.slots.push_back(slot_for(c, hash, models_[m], pools));
  questions_.push_back(std::move(q));
  if (first == 0 && end >= what_if_end_) every_model_.emplace(hash, questions_.size() - 1);
  return questions_.size() - 1;
}

size_t ModelReplays::slot_for(const SimulationConfig& c, size_t hash, const SchedulerModel& model,
                              bool pools) {
  const auto [begin, end] = slots_.equal_range(hash);
  for (auto it = begin; it != end; ++it) {
    const SimulationConfig& other = configs_[it->second];
    if (same_question(other, c) && other.model.same_as(model, pools)) return it->second;
  }
  configs_.push_back(c);
  configs_.back().model = model;
  slots_.emplace(hash, configs_.size() - 1);
  return configs_.size() - 1;
}

ReplayPass TracePasses::replay(std::vector<SimulationConfig> configs) {
  ReplayPass pass =
      replay_trace(open_(), thread_count(run_), costs_of(run_), std::move(configs), 0, wake_);
  seconds_ += pass.seconds;
  records_ += pass.assembler.records;
  return pass;
}

}  // namespace quartz::analysis
