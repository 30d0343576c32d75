#include "invariants.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

namespace quartz::test {
namespace {

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

void expect_real(const std::vector<double>& values, const std::string& where) {
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_TRUE(std::isfinite(values[i]) && values[i] >= 0)
        << where << "[" << i << "] = " << values[i];
  }
}

void expect_real(const profile::States& states, const std::string& where) {
  expect_real(std::vector<double>(states.begin(), states.end()), where);
}

void expect_real(const profile::FullRecord& r, const std::string& where) {
  expect_real(r.processor_self, where + " processor_self");
  expect_real(r.processor_behalf, where + " processor_behalf");
  expect_real(r.normalized_self, where + " normalized_self");
  expect_real(r.normalized_behalf, where + " normalized_behalf");
  expect_real(r.state_self, where + " state_self");
  expect_real(r.state_behalf, where + " state_behalf");
  for (const auto& bins : r.runnable) expect_real(bins, where + " runnable");
}

double states_s(const profile::States& s) {
  return std::accumulate(s.begin(), s.end(), 0.0);
}

// With i >= 1 processors busy, normalized time is processor time divided by i: never more.
void expect_normalized_within_processor(const std::vector<double>& normalized,
                                        const std::vector<double>& processor,
                                        const std::string& where) {
  for (size_t i = 1; i < normalized.size() && i < processor.size(); ++i) {
    EXPECT_LE(normalized[i], processor[i] * (1 + 1e-9) + 1e-12)
        << where << ": normalized time above processor time with " << i << " busy";
  }
}

void expect_normalized_within_processor(const profile::FullRecord& r, const std::string& where) {
  expect_normalized_within_processor(r.normalized_self, r.processor_self, where + " (self)");
  expect_normalized_within_processor(r.normalized_behalf, r.processor_behalf,
                                     where + " (on behalf)");
}

}  // namespace

void expect_possible_figures(const profile::Run& run) {
  const double elapsed_s = run.elapsed_s();
  const double period_s = run.number(capture::run_keys::kPeriodNs) * 1e-9;
  EXPECT_GT(elapsed_s, 0);
  expect_real(run.program, "program");
  expect_normalized_within_processor(run.program, "program");
  for (const auto& p : run.procedures) {
    expect_real(p.record, "procedure");
    expect_normalized_within_processor(p.record, "procedure");
  }
  // While one thread holds an object, at most all the others wait for it; at a barrier,
  // which nobody holds, all of them.
  const size_t threads = run.threads.size();
  for (const auto& o : run.objects) {
    expect_real(o.record, "object " + o.name);
    expect_real(o.queue, "object queue " + o.name);
    expect_normalized_within_processor(o.record, "object " + o.name);
    const bool held = o.kind != capture::kBarrier && o.kind != capture::kOmpBarrier &&
                      o.kind != capture::kOmpRegionEnd && o.kind != capture::kOmpIdle;
    for (size_t waiting = held ? threads : threads + 1; waiting < o.queue.size(); ++waiting) {
      EXPECT_EQ(o.queue[waiting], 0)
          << "object " << o.name << ": " << waiting << " threads waiting, of " << threads;
    }
  }
  for (const auto& c : run.contexts) {
    expect_real(c.record.processor, "context processor");
    expect_real(c.record.normalized, "context normalized");
    expect_real(c.record.state, "context state");
    expect_normalized_within_processor(c.record.normalized, c.record.processor, "context");
  }
  // Every interval of the run is shared out in full: the bins add up to it exactly.
  const double bins_s = sum(run.program.normalized_self) + sum(run.program.normalized_behalf);
  EXPECT_NEAR(bins_s, elapsed_s, 1e-6 * elapsed_s + 1e-6) << "parallelism bins against elapsed";

  for (const auto& t : run.threads) {
    const std::string name = "thread " + std::to_string(t.index);
    expect_real(t.record, name);
    const double end_s = t.exited_ns ? t.exited_ns * 1e-9 : elapsed_s;
    const double lifetime_s = end_s - t.created_ns * 1e-9;
    EXPECT_GE(lifetime_s, 0) << name;
    const double in_states_s = states_s(t.record.state_self) + states_s(t.record.state_behalf);
    EXPECT_NEAR(in_states_s, lifetime_s, period_s) << name << ": states against its lifetime";
    const double busy_s =
        t.record.state_self[capture::kBusy] + t.record.state_behalf[capture::kBusy];
    EXPECT_LE(busy_s, lifetime_s + 1e-6) << name << ": busy longer than it lived";
    const double processor_s = sum(t.record.processor_self) + sum(t.record.processor_behalf);
    EXPECT_LE(processor_s, lifetime_s + 1e-6)
        << name << ": processor time longer than it lived (its CPU time " << t.cpu_ns * 1e-9
        << " s)";
  }
}

}  // namespace quartz::test
