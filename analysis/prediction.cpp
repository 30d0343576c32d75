#include "analysis/prediction.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/grouping.h"
#include "analysis/profile_view.h"
#include "analysis/replay.h"
#include "analysis/simulation.h"
#include "analysis/trace_steps.h"
#include "analysis/wake_latency.h"

namespace quartz::analysis {
namespace {

constexpr size_t kListed = 10;  // rows per critical-path list

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
  return c;
}

// Reads the trace once, replaying it in every configuration at the same time.
ReplayPass replay(const profile::Run& run, const TraceOpener& open,
                  std::vector<SimulationConfig> configs, const WakeLatency& wake) {
  for (SimulationConfig& c : configs) c.wake_latency_ns = wake.idle_ns;
  return replay_trace(open(), thread_count(run), costs_of(run), std::move(configs));
}

// The contexts on whose path `name` is: by exact function name, else by a unique part of one.
std::pair<std::vector<uint8_t>, std::string> procedure_contexts(const profile::Run& run,
                                                                const std::string& name) {
  std::map<uint64_t, std::string> names;
  for (const auto& p : run.procedures) names[p.address] = display_name(run, p.address);
  std::set<uint64_t> chosen;
  for (const auto& [address, n] : names) {
    if (n == name) chosen.insert(address);
  }
  if (chosen.empty()) {
    std::string matches;
    for (const auto& [address, n] : names) {
      if (n.find(name) == std::string::npos) continue;
      chosen.insert(address);
      matches += (matches.empty() ? "" : ", ") + n;
    }
    if (chosen.size() > 1) {
      throw PredictionError("procedure '" + name + "' is ambiguous: " + matches);
    }
  }
  if (chosen.empty()) throw PredictionError("no procedure '" + name + "' in this run");
  const std::string matched = names[*chosen.begin()];
  uint32_t max_id = 0;
  for (const auto& c : run.contexts) max_id = std::max(max_id, c.id + 1);
  std::vector<uint8_t> in(max_id, 0);
  std::vector<const profile::ContextInfo*> by_id(max_id, nullptr);
  for (const auto& c : run.contexts) by_id[c.id] = &c;
  // Parents come first in the capture: a context is in the procedure if it is, or its parent is.
  for (const auto& c : run.contexts) {
    const bool here = c.kind == capture::kProcedure && chosen.count(c.address);
    const bool above = c.parent != capture::kNoParent && c.parent < max_id && in[c.parent];
    in[c.id] = here || above;
  }
  return {in, matched};
}

std::vector<NamedTime> top(std::map<std::string, double> values) {
  std::vector<NamedTime> out;
  for (const auto& [name, ns] : values) out.push_back({name, ns / 1e9});
  std::sort(out.begin(), out.end(),
            [](const NamedTime& a, const NamedTime& b) { return a.seconds > b.seconds; });
  if (out.size() > kListed) out.resize(kListed);
  return out;
}

CriticalPath describe_path(const profile::Run& run, const SimulationResult& r, double observed_s) {
  CriticalPath cp;
  cp.length_s = r.elapsed_ns / 1e9;
  cp.share = share(cp.length_s, observed_s).value_or(0);
  if (!r.path) return cp;
  const PathComposition& p = *r.path;
  cp.cpu_s = p.cpu_ns / 1e9;
  cp.delay_s = p.delay_ns / 1e9;
  std::map<std::string, double> threads, procedures, locks;
  for (uint32_t i = 0; i < p.thread_ns.size(); ++i) {
    if (p.thread_ns[i] <= 0) continue;
    std::string name = std::to_string(i);
    for (const auto& t : run.threads) {
      if (t.index == i) name = std::to_string(i) + " " + thread_name(run, t);
    }
    threads[name] += p.thread_ns[i];
  }
  std::map<uint32_t, const profile::ContextInfo*> contexts;
  for (const auto& c : run.contexts) contexts[c.id] = &c;
  for (const auto& [id, ns] : p.context_ns) {
    std::set<uint64_t> seen;  // a recursive procedure counts once
    for (auto it = contexts.find(id); it != contexts.end();
         it = contexts.find(it->second->parent)) {
      const profile::ContextInfo& c = *it->second;
      if (c.kind == capture::kProcedure && seen.insert(c.address).second) {
        procedures[display_name(run, c.address)] += ns;
      }
      if (c.parent == capture::kNoParent) break;
    }
  }
  const auto object_name = object_names(run);
  for (const auto& [address, ns] : p.lock_ns) {
    auto object = object_name.find(address);
    locks[object != object_name.end() ? object->second : display_name(run, address)] += ns;
  }
  cp.threads = top(threads);
  cp.procedures = top(procedures);
  cp.locks = top(locks);
  return cp;
}

void check_trace(const profile::Run& run, const PredictionRequest& request) {
  if (!run.info.count(capture::run_keys::kTraceEvents)) {
    throw PredictionError("this run has no trace: record it with 'quartz run --trace'");
  }
  const auto dropped = static_cast<uint64_t>(run.number(capture::run_keys::kTraceDropped));
  if (dropped > 0 && !request.allow_drops) {
    throw PredictionError("the trace lost " + std::to_string(dropped) +
                          " events to full queues, so predictions from it would be wrong; record "
                          "again with a larger --trace-capacity, or pass --allow-drops");
  }
}

}  // namespace

Predictions predict(const profile::Run& run, const TraceOpener& open,
                    const PredictionRequest& request) {
  check_trace(run, request);
  const uint32_t threads = thread_count(run);
  Predictions out;
  out.program = run.text(capture::run_keys::kProgram);
  out.processors = run.processors;

  // The first pass: the recorded configuration, the critical path, and every question
  // that needs no search.
  std::vector<SimulationConfig> configs;
  configs.push_back(threads_sharing(threads, run.processors));
  SimulationConfig path = threads_apart(threads);
  path.critical_path = true;
  configs.push_back(std::move(path));
  std::vector<Grouping> asked;
  for (const std::string& spec : request.groupings) {
    try {
      asked.push_back(parse_grouping(spec, run));
    } catch (const GroupingError& e) {
      throw PredictionError(e.what());
    }
    configs.push_back(threads_grouped(asked.back().group_of));
  }
  for (const std::string& name : request.zero) {
    auto [in, matched] = procedure_contexts(run, name);
    SimulationConfig c = threads_sharing(threads, run.processors);
    c.in_procedure = std::move(in);
    c.speedup = 1;
    configs.push_back(std::move(c));
    out.procedures.push_back({"zero", matched, 100, 0, 0});
  }
  for (const auto& [name, percent] : request.speedup) {
    if (percent <= 0 || percent > 100) {
      throw PredictionError("--speedup " + name + "=" + std::to_string(percent) +
                            ": PCT must be in (0, 100]");
    }
    auto [in, matched] = procedure_contexts(run, name);
    SimulationConfig c = threads_sharing(threads, run.processors);
    c.in_procedure = std::move(in);
    c.speedup = percent / 100;
    configs.push_back(std::move(c));
    out.procedures.push_back({"speedup", matched, percent, 0, 0});
  }
  for (const std::string& name : request.migrate) {
    auto [in, matched] = procedure_contexts(run, name);
    SimulationConfig c = threads_sharing(threads, run.processors);
    c.in_procedure = std::move(in);
    c.migrate = true;
    configs.push_back(std::move(c));
    out.procedures.push_back({"migrate", matched, 100, 0, 0});
  }
  // Searches: every grouping at once when there are few, else a local search from a
  // balanced start, one round per pass.
  struct Search {
    GroupingSearch report;
    std::vector<Grouping> candidates;
    size_t first_config = 0;
    std::vector<std::pair<double, Grouping>> tried;
  };
  std::vector<Search> searches;
  std::vector<double> cpu(threads, 0);
  for (const auto& t : run.threads) cpu[t.index] = static_cast<double>(t.cpu_ns);
  for (uint32_t cores : request.search_cores) {
    if (cores == 0) throw PredictionError("--cores must be at least 1");
    Search s;
    s.report.cores = cores;
    const uint32_t groups = std::min(cores, std::max(threads, 1u));
    s.candidates = all_groupings(threads, groups, request.exhaustive_limit);
    s.report.exhaustive = !s.candidates.empty();
    if (s.candidates.empty()) s.candidates.push_back(balanced_grouping(cpu, groups));
    searches.push_back(std::move(s));
  }
  const size_t shared_first = configs.size();
  for (const Search& s : searches) configs.push_back(threads_sharing(threads, s.report.cores));
  for (Search& s : searches) {
    s.first_config = configs.size();
    for (const Grouping& g : s.candidates) configs.push_back(threads_grouped(g.group_of));
  }

  const WakeLatency wake = measure_wake_latency(open());
  ReplayPass pass = replay(run, open, std::move(configs), wake);
  out.quality.events = pass.assembler.events;
  out.quality.records = pass.assembler.records;
  out.quality.samples = pass.assembler.samples;
  out.quality.dropped = pass.assembler.dropped;
  out.quality.bytes = pass.trace.bytes;
  out.quality.complete = pass.trace.complete;
  out.quality.unpaired_waits = pass.assembler.unpaired_waits;
  out.quality.compensated_s = pass.assembler.compensated_ns / 1e9;
  out.quality.wake_latency_s = wake.idle_ns / 1e9;
  out.quality.wake_ups = wake.wake_ups;
  out.quality.forced_waits = pass.results[0].forced_waits;
  out.quality.seconds = pass.seconds;
  out.quality.records_per_second =
      pass.seconds > 0 ? static_cast<double>(pass.assembler.records) / pass.seconds : 0;
  for (const auto& r : pass.results)
    out.quality.peak_window = std::max(out.quality.peak_window, r.peak_window);
  out.observed_s = run.elapsed_s();  // the run's one elapsed time, as the report shows it
  if (run.info.count(capture::run_keys::kOtherCpuNs) && out.observed_s > 0) {
    out.other_share = run.number(capture::run_keys::kOtherCpuNs) * 1e-9 /
                      (out.observed_s * std::max<uint32_t>(1, run.processors));
  }
  out.recorded_s = pass.results[0].elapsed_ns / 1e9;
  out.critical_path = describe_path(run, pass.results[1], out.observed_s);
  size_t next = 2;
  for (const Grouping& g : asked) {
    out.groupings.push_back(
        {grouping_spec(g), grouping_names(g, run), pass.results[next++].elapsed_ns / 1e9});
  }
  for (auto& p : out.procedures) {
    p.predicted_s = pass.results[next].elapsed_ns / 1e9;
    p.unreceived_s = pass.results[next].migrated_unreceived_ns / 1e9;
    ++next;
  }
  for (size_t i = 0; i < searches.size(); ++i) {
    Search& s = searches[i];
    s.report.shared_s = pass.results[shared_first + i].elapsed_ns / 1e9;
    for (size_t c = 0; c < s.candidates.size(); ++c) {
      s.tried.emplace_back(pass.results[s.first_config + c].elapsed_ns, s.candidates[c]);
    }
    s.report.candidates = s.candidates.size();
    s.report.rounds = 1;
  }

  // Local search: move one thread at a time while that helps (a few rounds at most).
  constexpr uint32_t kMaxRounds = 8;
  for (Search& s : searches) {
    if (s.report.exhaustive) continue;
    auto best = *std::min_element(s.tried.begin(), s.tried.end(),
                                  [](const auto& a, const auto& b) { return a.first < b.first; });
    while (s.report.rounds < kMaxRounds) {
      std::vector<Grouping> around = neighbours(best.second);
      if (around.empty()) break;
      std::vector<SimulationConfig> round;
      for (const Grouping& g : around) round.push_back(threads_grouped(g.group_of));
      ReplayPass more = replay(run, open, std::move(round), wake);
      ++s.report.rounds;
      s.report.candidates += around.size();
      bool improved = false;
      for (size_t c = 0; c < around.size(); ++c) {
        s.tried.emplace_back(more.results[c].elapsed_ns, around[c]);
        if (more.results[c].elapsed_ns < best.first * (1 - 1e-9)) {
          best = {more.results[c].elapsed_ns, around[c]};
          improved = true;
        }
      }
      if (!improved) break;
    }
  }
  for (Search& s : searches) {
    std::sort(s.tried.begin(), s.tried.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::set<std::string> listed;
    for (const auto& [ns, g] : s.tried) {
      const std::string spec = grouping_spec(g);
      if (!listed.insert(spec).second) continue;
      s.report.best.push_back({spec, grouping_names(g, run), ns / 1e9});
      if (s.report.best.size() == request.best) break;
    }
    out.searches.push_back(std::move(s.report));
  }
  return out;
}

std::vector<TrustWarning> trust_warnings(const Predictions& p) {
  std::vector<TrustWarning> out;
  const auto percent = [](double share) { return std::to_string(std::lround(100 * share)) + "%"; };
  const double error = p.observed_s > 0 ? (p.recorded_s - p.observed_s) / p.observed_s : 0;
  constexpr double kBusy = 0.05;  // of the processors' time: more than the noise of ticks
  const bool busy = p.other_share && *p.other_share > kBusy;
  if (std::fabs(error) > 0.10) {
    out.push_back(
        {"replay_error", "the replay of the recording is " + percent(std::fabs(error)) +
                             (error < 0 ? " short of" : " over") +
                             " the recorded time: every prediction carries an error of that order" +
                             (busy ? " (the machine was busy: below)" : "")});
  }
  if (busy) {
    out.push_back({"busy_machine", "other processes took " + percent(*p.other_share) +
                                       " of the processors while this was recorded; the "
                                       "predictions are for the program alone on an idle "
                                       "machine"});
  }
  if (p.quality.dropped) {
    out.push_back({"dropped_events", "the trace lost " + std::to_string(p.quality.dropped) +
                                         " events: the threads that lost them are replayed "
                                         "without them"});
  }
  if (!p.quality.complete) {
    out.push_back({"incomplete_trace",
                   "the trace ends early (the run did not finish writing "
                   "it): the replay stops where it does"});
  }
  if (p.quality.forced_waits || p.quality.unpaired_waits) {
    out.push_back(
        {"unmatched_waits", std::to_string(p.quality.forced_waits + p.quality.unpaired_waits) +
                                " waits had no recorded wake-up the replay could follow and are "
                                "replayed as the delays they took"});
  }
  return out;
}

}  // namespace quartz::analysis
