#include "analysis/scheduler_model.h"

#include <stdexcept>

namespace quartz::analysis {
namespace {

struct Part {
  const char* name;
  const char* meaning;
  void (*apply)(SchedulerModel&);
};

// Ways of sharing one processor: the first part of a name.
constexpr Part kSharing[] = {
    {"fair", "a processor shared equally by the threads ready on it, all at once",
     [](SchedulerModel&) {}},
    {"slices", "turns of 2 ms; a woken thread runs at once, the one it displaced next",
     [](SchedulerModel& m) { m.sharing = Sharing::slices; }},
    {"turns", "turns of 2 ms; a woken thread waits for the turn under way to end",
     [](SchedulerModel& m) {
       m.sharing = Sharing::slices;
       m.wake_preempts = false;
     }},
    {"run_to_block", "turns of 100 ms: a thread runs until it blocks; a woken thread waits",
     [](SchedulerModel& m) {
       m.sharing = Sharing::slices;
       m.wake_preempts = false;
       m.slice_ns = 100e6;  // longer than a step; a spinner still lets the holder run
     }},
};

// What a model may change besides: the parts after a "+".
constexpr Part kModifiers[] = {
    {"instant_wake", "wake-ups onto an idle processor take no time (not the measured latency)",
     [](SchedulerModel& m) { m.wake_latency = false; }},
    {"wake_to_last", "a woken thread goes back to its own processor even when another is idle",
     [](SchedulerModel& m) { m.wake_to_idle = false; }},
    {"no_pull", "an idle processor takes a waiting thread only at the periodic balancing (4 ms)",
     [](SchedulerModel& m) { m.pull_when_idle = false; }},
    {"barging", "a mutex goes to whoever asks while it is free, not in the recorded order",
     [](SchedulerModel& m) { m.recorded_lock_order = false; }},
};

const Part* find(std::string_view name, const auto& parts) {
  for (const Part& p : parts) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

SchedulerModel model_named(const std::string& name) {
  SchedulerModel m;
  m.name = name;
  size_t begin = 0;
  bool first = true;
  while (begin <= name.size()) {
    const size_t end = std::min(name.find('+', begin), name.size());
    const std::string_view part(name.data() + begin, end - begin);
    const Part* p = first ? find(part, kSharing) : nullptr;
    if (!p) p = find(part, kModifiers);
    if (!p) {
      throw std::invalid_argument("no scheduler model part '" + std::string(part) + "' in '" +
                                  name + "' (see quartz predict --help)");
    }
    p->apply(m);
    first = false;
    begin = end + 1;
  }
  return m;
}

}  // namespace

bool SchedulerModel::same_as(const SchedulerModel& o, bool pools) const {
  if (sharing != o.sharing || wake_latency != o.wake_latency ||
      recorded_lock_order != o.recorded_lock_order) {
    return false;
  }
  if (sharing == Sharing::slices && (slice_ns != o.slice_ns || wake_preempts != o.wake_preempts)) {
    return false;
  }
  return !pools || (wake_to_idle == o.wake_to_idle && pull_when_idle == o.pull_when_idle);
}

std::vector<SchedulerModel> default_scheduler_models() {
  return scheduler_models_named(kDefaultSchedulerModels);
}

std::vector<bool> recorded_configuration_only(const std::vector<SchedulerModel>& models) {
  std::vector<bool> out(models.size());
  if (models.empty() || models.front().recorded_lock_order) return out;
  for (size_t m = 1; m < models.size(); ++m) out[m] = models[m].recorded_lock_order;
  return out;
}

std::vector<SchedulerModel> scheduler_models_named(const std::string& names) {
  std::vector<SchedulerModel> out;
  size_t begin = 0;
  while (begin <= names.size()) {
    const size_t end = std::min(names.find(',', begin), names.size());
    out.push_back(model_named(names.substr(begin, end - begin)));
    begin = end + 1;
  }
  return out;
}

std::string model_differences(const SchedulerModel& a, const SchedulerModel& b) {
  std::string out;
  auto part = [&](bool differ, const char* name) {
    if (differ) out += (out.empty() ? "" : ", ") + std::string(name);
  };
  part(a.sharing != b.sharing || a.slice_ns != b.slice_ns || a.wake_preempts != b.wake_preempts,
       "sharing a processor");
  part(a.wake_latency != b.wake_latency, "wake-ups");
  part(a.wake_to_idle != b.wake_to_idle, "placement in a pool");
  part(a.pull_when_idle != b.pull_when_idle, "balancing");
  part(a.recorded_lock_order != b.recorded_lock_order, "who gets a free mutex");
  return out;
}

std::string scheduler_model_names_help() {
  std::string out;
  for (const Part& p : kSharing) out += std::string(p.name) + ": " + p.meaning + "\n";
  for (const Part& p : kModifiers) out += "+" + std::string(p.name) + ": " + p.meaning + "\n";
  return out;
}

}  // namespace quartz::analysis
