#include "analysis/invariants.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <span>

namespace quartz::analysis {
namespace {

double total(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

double total(const profile::States& s) {
  return std::accumulate(s.begin(), s.end(), 0.0);
}

// Nine significant digits: enough to tell a rounding error from a real excess.
std::string number(double v) {
  char out[32];
  std::snprintf(out, sizeof out, "%.9g", v);
  return out;
}

// Collects the violations with the record they are about.
struct Checker {
  std::vector<std::string> violations;

  void fail(const std::string& line) { violations.push_back(line); }

  void real(std::span<const double> values, const std::string& where) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (!(std::isfinite(values[i]) && values[i] >= 0)) {
        fail(where + "[" + std::to_string(i) + "] = " + number(values[i]));
      }
    }
  }

  void real(const profile::FullRecord& r, const std::string& where) {
    real(r.processor_self, where + " processor_self");
    real(r.processor_behalf, where + " processor_behalf");
    real(r.normalized_self, where + " normalized_self");
    real(r.normalized_behalf, where + " normalized_behalf");
    real(r.state_self, where + " state_self");
    real(r.state_behalf, where + " state_behalf");
    for (const auto& bins : r.runnable) real(bins, where + " runnable");
  }

  // With i >= 1 processors busy, normalized time is processor time divided by i: never more.
  void normalized_within_processor(std::span<const double> normalized,
                                   std::span<const double> processor, const std::string& where) {
    for (size_t i = 1; i < normalized.size() && i < processor.size(); ++i) {
      if (!(normalized[i] <= processor[i] * (1 + 1e-9) + 1e-12)) {
        fail(where + ": normalized time " + number(normalized[i]) + " s above processor time " +
             number(processor[i]) + " s with " + std::to_string(i) + " busy");
      }
    }
  }

  void normalized_within_processor(const profile::FullRecord& r, const std::string& where) {
    normalized_within_processor(r.normalized_self, r.processor_self, where + " (self)");
    normalized_within_processor(r.normalized_behalf, r.processor_behalf, where + " (on behalf)");
  }
};

std::string procedure_name(const profile::Run& run, uint64_t address) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%" PRIx64, address);
  const auto symbol = run.symbols.find(address);
  if (symbol == run.symbols.end() || symbol->second.function.empty()) return hex;
  return symbol->second.function + " (" + hex + ")";
}

std::string object_name(const profile::ObjectInfo& o) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%" PRIx64, o.address);
  return o.name.empty() ? std::string(hex) : o.name + " (" + hex + ")";
}

}  // namespace

std::vector<std::string> invariant_violations(const profile::Run& run) {
  Checker check;
  const double elapsed_s = run.elapsed_s();
  const double period_s = run.number(capture::run_keys::kPeriodNs) * 1e-9;
  if (!(elapsed_s > 0)) check.fail("elapsed time " + number(elapsed_s) + " s, not above 0");
  check.real(run.program, "program");
  check.normalized_within_processor(run.program, "program");
  for (const auto& p : run.procedures) {
    const std::string name = "procedure " + procedure_name(run, p.address);
    check.real(p.record, name);
    check.normalized_within_processor(p.record, name);
  }
  // At most all threads but one wait for an object: one holds it, or is the barrier's last
  // arrival, or the thread joined.
  const size_t threads = run.threads.size();
  for (const auto& o : run.objects) {
    const std::string name = "object " + object_name(o);
    check.real(o.record, name);
    check.real(o.queue, name + " queue");
    check.normalized_within_processor(o.record, name);
    for (size_t waiting = std::max<size_t>(threads, 2); waiting < o.queue.size(); ++waiting) {
      if (o.queue[waiting] != 0) {
        check.fail(name + ": " + number(o.queue[waiting]) + " s with " + std::to_string(waiting) +
                   " threads waiting, of " + std::to_string(threads) + " threads");
      }
    }
  }
  for (size_t i = 0; i < run.contexts.size(); ++i) {
    const profile::ContextInfo& c = run.contexts[i];
    const std::string name = "context " + std::to_string(c.id);
    const std::span<const double> processor = run.processor_of(i),
                                  normalized = run.normalized_of(i);
    check.real(processor, name + " processor");
    check.real(normalized, name + " normalized");
    check.real(c.own.state, name + " state");
    check.normalized_within_processor(normalized, processor, name);
    // Its starved, taken and waited parts are parts of its time with one processor busy.
    const double one_busy = normalized.size() > 1 ? normalized[1] : 0.0;
    const double starved = c.own.one_busy_starved, taken = c.own.one_busy_taken,
                 waited = c.own.one_busy_waited;
    if (!(starved >= 0 && taken >= 0 && waited >= 0 &&
          starved + taken + waited <= one_busy * (1 + 1e-9) + 1e-12)) {
      check.fail(name + ": " + number(starved) + " s starved, " + number(taken) + " s taken and " +
                 number(waited) + " s waited for with one processor busy, of " + number(one_busy) +
                 " s");
    }
  }
  // Start-up and wind-down starvation: processor time, within the processors' time; what
  // the threads that ran meanwhile were charged adds up to no more.
  double starved_s = 0;
  for (const char* key :
       {capture::run_keys::kStarvedStartupNs, capture::run_keys::kStarvedBetweenNs,
        capture::run_keys::kStarvedWinddownNs}) {
    const double v = run.number(key) * 1e-9;
    if (!(v >= 0)) check.fail(std::string(key) + " = " + number(v));
    starved_s += v;
  }
  const double capacity_s = run.processors * elapsed_s;
  if (!(starved_s <= capacity_s * (1 + 1e-9) + 1e-6)) {
    check.fail("starved " + number(starved_s) + " s, more than the processors' time " +
               number(capacity_s) + " s");
  }
  double charged_s = 0;
  for (const auto& t : run.threads) {
    if (!(t.starved_startup_s >= 0 && t.starved_later_s >= 0)) {
      check.fail("thread " + std::to_string(t.index) + ": starved " + number(t.starved_startup_s) +
                 " s, " + number(t.starved_later_s) + " s");
    }
    charged_s += t.starved_startup_s + t.starved_later_s;
  }
  if (!(charged_s <= starved_s * (1 + 1e-9) + 1e-6)) {
    check.fail("threads charged with " + number(charged_s) + " s of starvation, of " +
               number(starved_s) + " s");
  }
  // Every interval of the run is shared out in full: the bins add up to it exactly.
  const double bins_s = total(run.program.normalized_self) + total(run.program.normalized_behalf);
  if (!(std::fabs(bins_s - elapsed_s) <= 1e-6 * elapsed_s + 1e-6)) {
    check.fail("parallelism bins sum to " + number(bins_s) + " s, elapsed " + number(elapsed_s) +
               " s");
  }

  for (const auto& t : run.threads) {
    const std::string name = "thread " + std::to_string(t.index);
    check.real(t.record, name);
    check.normalized_within_processor(t.record, name);
    const double end_s = t.exited_ns ? t.exited_ns * 1e-9 : elapsed_s;
    const double lifetime_s = end_s - t.created_ns * 1e-9;
    if (!(lifetime_s >= 0)) check.fail(name + ": lifetime " + number(lifetime_s) + " s");
    const double in_states_s = total(t.record.state_self) + total(t.record.state_behalf);
    if (!(std::fabs(in_states_s - lifetime_s) <= period_s)) {
      check.fail(name + ": states sum to " + number(in_states_s) + " s, its lifetime " +
                 number(lifetime_s) + " s (a sampling period: " + number(period_s) + " s)");
    }
    const double busy_s =
        t.record.state_self[capture::kBusy] + t.record.state_behalf[capture::kBusy];
    if (!(busy_s <= lifetime_s + 1e-6)) {
      check.fail(name + ": busy " + number(busy_s) + " s, longer than its lifetime " +
                 number(lifetime_s) + " s");
    }
    const double processor_s = total(t.record.processor_self) + total(t.record.processor_behalf);
    if (!(processor_s <= lifetime_s + 1e-6)) {
      check.fail(name + ": processor time " + number(processor_s) +
                 " s, longer than its lifetime " + number(lifetime_s) + " s (its CPU time " +
                 number(t.cpu_ns * 1e-9) + " s)");
    }
  }
  return check.violations;
}

}  // namespace quartz::analysis
