#include "analysis/scheduler_model.h"

#include <array>
#include <stdexcept>

namespace quartz::analysis {
namespace {

constexpr SchedulerModel fair() {
  return SchedulerModel{};
}

constexpr SchedulerModel slices() {
  SchedulerModel m;
  m.name = "slices";
  m.sharing = Sharing::slices;
  return m;
}

constexpr SchedulerModel turns() {
  SchedulerModel m = slices();
  m.name = "turns";
  m.wake_preempts = false;
  return m;
}

constexpr SchedulerModel run_to_block() {
  SchedulerModel m = turns();
  m.name = "run_to_block";
  m.slice_ns = 100e6;  // long enough to finish a step; a spinner still lets the holder run
  return m;
}

constexpr SchedulerModel instant_wake() {
  SchedulerModel m;
  m.name = "instant_wake";
  m.wake_latency = false;
  return m;
}

constexpr SchedulerModel wake_to_last() {
  SchedulerModel m;
  m.name = "wake_to_last";
  m.wake_to_idle = false;
  return m;
}

constexpr SchedulerModel no_pull() {
  SchedulerModel m;
  m.name = "no_pull";
  m.pull_when_idle = false;
  return m;
}

constexpr SchedulerModel barging() {
  SchedulerModel m;
  m.name = "barging";
  m.recorded_lock_order = false;
  return m;
}

constexpr SchedulerModel slices_barging() {
  SchedulerModel m = slices();
  m.name = "slices_barging";
  m.recorded_lock_order = false;
  return m;
}

constexpr std::array kKnown{fair(),         slices(),  turns(),   run_to_block(),  instant_wake(),
                            wake_to_last(), no_pull(), barging(), slices_barging()};

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

std::span<const SchedulerModel> known_scheduler_models() {
  return kKnown;
}

std::vector<SchedulerModel> default_scheduler_models() {
  return {fair(), slices(), instant_wake(), barging()};
}

std::vector<SchedulerModel> scheduler_models_named(const std::string& names) {
  std::vector<SchedulerModel> out;
  size_t begin = 0;
  while (begin <= names.size()) {
    const size_t end = std::min(names.find(',', begin), names.size());
    const std::string_view name(names.data() + begin, end - begin);
    bool found = false;
    for (const SchedulerModel& m : kKnown) {
      if (m.name != name) continue;
      out.push_back(m);
      found = true;
    }
    if (!found) {
      std::string known;
      for (const SchedulerModel& m : kKnown)
        known += (known.empty() ? "" : ", ") + std::string(m.name);
      throw std::invalid_argument("no scheduler model '" + std::string(name) +
                                  "' (known: " + known + ")");
    }
    begin = end + 1;
  }
  return out;
}

}  // namespace quartz::analysis
