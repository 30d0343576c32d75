#include "analysis/replay.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

namespace quartz::analysis {
namespace {

// Advances every simulation as far as the steps read so far allow, on `workers` threads
// (this one among them), each taking the next simulation not yet taken. The simulations
// only read the steps and attributions, which nothing changes meanwhile, and each keeps
// its own state: the results are the same on any number of threads.
class Advancer {
 public:
  Advancer(std::vector<std::unique_ptr<Simulation>>& sims, unsigned workers)
      : sims_(sims), round_(workers), done_(workers) {
    for (unsigned w = 1; w < workers; ++w) pool_.emplace_back([this] { serve(); });
  }
  ~Advancer() {
    if (pool_.empty()) return;
    stop_ = true;
    round_.arrive_and_wait();
    for (std::thread& t : pool_) t.join();
  }
  Advancer(const Advancer&) = delete;
  Advancer& operator=(const Advancer&) = delete;

  void advance() {
    next_ = 0;
    if (pool_.empty()) {
      work();
    } else {
      round_.arrive_and_wait();
      work();
      done_.arrive_and_wait();
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
  }

 private:
  void serve() {
    for (;;) {
      round_.arrive_and_wait();
      if (stop_) return;
      work();
      done_.arrive_and_wait();
    }
  }
  void work() {
    for (size_t i; (i = next_++) < sims_.size();) {
      try {
        sims_[i]->advance();
      } catch (...) {
        const std::lock_guard<std::mutex> hold(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }

  std::vector<std::unique_ptr<Simulation>>& sims_;
  std::barrier<> round_, done_;  // a round begins; every worker has finished it
  std::vector<std::thread> pool_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// Steps assembled and not yet trimmed, in every thread's log.
uint64_t steps_held(StepAssembler& assembler) {
  uint64_t held = 0;
  for (const StepLog& log : assembler.logs()) held += log.end() - log.begin();
  return held;
}

}  // namespace

ReplayPass replay_trace(std::unique_ptr<profile::TraceSource> source, uint32_t threads,
                        const AssemblerCosts& costs, std::vector<SimulationConfig> configs,
                        unsigned workers, std::shared_future<WakeLatency> wake) {
  const auto begin = std::chrono::steady_clock::now();
  profile::TraceReader reader(std::move(source));
  StepAssembler assembler(threads, costs);
  std::vector<std::unique_ptr<Simulation>> sims;
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  std::optional<Advancer> advancer;
  // The simulations begin from the first step, whenever they are made: nothing is trimmed
  // from the logs before.
  auto begin_replays = [&] {
    for (auto& c : configs) {
      if (wake.valid()) c.wake_latency_ns = wake.get().idle_ns;
      sims.push_back(
          std::make_unique<Simulation>(std::move(c), assembler.logs(), assembler.attributions()));
    }
    advancer.emplace(sims, static_cast<unsigned>(std::clamp<size_t>(sims.size(), 1, workers)));
  };
  auto latency_known = [&] {
    return !wake.valid() || wake.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  };
  std::vector<profile::TraceRecord> chunk;
  while (reader.next_chunk(chunk)) {
    assembler.add(chunk);
    if (!advancer && (latency_known() || steps_held(assembler) >= kStepsHeldForTheLatency)) {
      begin_replays();
    }
    if (!advancer) continue;
    advancer->advance();
    for (uint32_t t = 0; t < assembler.logs().size(); ++t) {
      uint64_t keep = ~uint64_t{0};
      for (const auto& s : sims) keep = std::min(keep, s->position(t));
      assembler.trim(t, keep);
    }
  }
  assembler.finish();
  if (!advancer) begin_replays();
  advancer->advance();
  ReplayPass pass;
  for (auto& s : sims) pass.results.push_back(s->result());
  pass.assembler = assembler.totals();
  for (const auto& [condition, use] : assembler.conditions()) {
    if (use.waiters.empty() || use.signals == 0) continue;
    pass.signalled_conditions.push_back(use);
    pass.signalled_conditions.back().takers = assembler.mutex_takers(use.mutex);
  }
  // In an order of their own, not the table's: the pools, and so the answers, are the same
  // in every pass and on every machine.
  std::sort(pass.signalled_conditions.begin(), pass.signalled_conditions.end(),
            [](const auto& a, const auto& b) {
              return std::tie(a.waiters, a.signallers, a.signals, a.broadcasts, a.mutex, a.takers) <
                     std::tie(b.waiters, b.signallers, b.signals, b.broadcasts, b.mutex, b.takers);
            });
  pass.trace = reader.totals();
  pass.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return pass;
}

}  // namespace quartz::analysis
