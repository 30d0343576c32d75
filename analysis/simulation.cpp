// The class callers use (simulation.h) and its configurations; the replay itself is in
// the simulation_*.cpp files around simulation_state.h.
#include "analysis/simulation.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "analysis/simulation_state.h"

namespace quartz::analysis {

Simulation::State::State(SimulationConfig c, std::vector<StepLog>& l,
                         const std::vector<Attribution>& a)
    : config(std::move(c)), logs(l), attributions(a) {
  if (!config.model.wake_latency) config.wake_latency_ns = 0;
  for (double cores : config.cores) add_pool(cores);
  grow();
}

void Simulation::State::grow() {
  while (threads.size() < logs.size()) {
    const auto index = static_cast<uint32_t>(threads.size());
    SimThread t;
    if (index < config.group_of_thread.size()) {
      t.pool = config.group_of_thread[index];
    } else {
      t.pool = static_cast<uint32_t>(pools.size());
      add_pool(1);
    }
    t.lane = pools[t.pool].lanes.front();
    threads.push_back(std::move(t));
    work.push_back(index);
  }
}

bool same_question(const SimulationConfig& a, const SimulationConfig& b) {
  return a.group_of_thread == b.group_of_thread && a.cores == b.cores && a.capacity == b.capacity &&
         a.in_procedure == b.in_procedure && a.speedup == b.speedup && a.migrate == b.migrate &&
         a.critical_path == b.critical_path && a.wake_latency_ns == b.wake_latency_ns;
}

SimulationConfig threads_apart(uint32_t threads) {
  SimulationConfig c;
  for (uint32_t t = 0; t < threads; ++t) {
    c.group_of_thread.push_back(t);
    c.cores.push_back(1);
  }
  return c;
}

SimulationConfig threads_sharing(uint32_t threads, double cores) {
  SimulationConfig c;
  c.group_of_thread.assign(threads, 0);
  c.cores = {cores};
  return c;
}

SimulationConfig threads_grouped(const std::vector<uint32_t>& group_of) {
  SimulationConfig c;
  c.group_of_thread = group_of;
  c.cores.assign(group_of.empty() ? 0 : *std::max_element(group_of.begin(), group_of.end()) + 1, 1);
  return c;
}

Simulation::Simulation(SimulationConfig config, std::vector<StepLog>& logs,
                       const std::vector<Attribution>& attributions)
    : state_(std::make_unique<State>(std::move(config), logs, attributions)) {}

Simulation::~Simulation() = default;

bool Simulation::advance() {
  uint64_t window = 0;
  for (size_t i = 0; i < state_->logs.size() && i < state_->threads.size(); ++i) {
    window += state_->logs[i].end() - std::min(state_->logs[i].end(), state_->threads[i].cursor);
  }
  state_->result.peak_window = std::max(state_->result.peak_window, window);
  return state_->advance();
}

uint64_t Simulation::position(uint32_t index) const {
  return index < state_->threads.size() ? state_->threads[index].cursor : 0;
}

SimulationResult Simulation::result() const {
  SimulationResult r = state_->result;
  double last = 0;
  r.thread_end_ns.clear();
  for (const State::SimThread& t : state_->threads) {
    r.thread_end_ns.push_back(t.end_ns);
    last = std::max(last, t.end_ns);
  }
  r.elapsed_ns = state_->end_seen ? state_->end_ns : last;
  if (state_->config.critical_path) {
    // The path ends where the program ended: on the thread that ended it, or the last.
    std::optional<PathRef> path = state_->end_path;
    if (!path) {
      const State::SimThread* ending = nullptr;
      for (const State::SimThread& t : state_->threads) {
        if (!ending || t.end_ns > ending->end_ns) ending = &t;
      }
      if (ending) path = ending->path;
    }
    if (path) r.path = std::make_shared<const PathComposition>(state_->compose_path(*path));
  }
  state_->keys.for_each([&](const State::KeyState& k) {
    if (k.consumers == 0) r.migrated_unreceived_ns += k.migrated_ns;
  });
  return r;
}

}  // namespace quartz::analysis
