#include "analysis/prediction.h"

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <set>

#include "analysis/grouping.h"
#include "analysis/grouping_search.h"
#include "analysis/model_replays.h"
#include "analysis/profile_view.h"
#include "analysis/run_quality.h"
#include "analysis/sampling_error.h"
#include "analysis/simulation.h"
#include "analysis/task_pools.h"
#include "analysis/text_format.h"
#include "analysis/wake_latency.h"

namespace quartz::analysis {
namespace {

// A share of the processors taken from the program past this is a broken recording's: the
// check's replay still ends.
constexpr double kMostTakenFromTheProgram = 0.5;

// The contexts on whose path `name` is: by exact function name, else by a unique part of one.
// A procedure whose entry the budget turned off before any snapshot saw it has none, but is
// the run's all the same (its change is then said to be left out of the trace).
std::pair<std::vector<uint8_t>, std::string> procedure_contexts(const profile::Run& run,
                                                                const std::string& name) {
  std::map<uint64_t, std::string> names;
  for (const auto& p : run.procedures) names[p.address] = display_name(run, p.address);
  for (const UnpatchedProcedure& u : unpatched_procedures(run)) names.emplace(u.address, u.name);
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

// The processor time the sampler counted in the contexts `in` marks (a procedure's: every
// context it is on, so each counts once).
double processor_time_in(const profile::Run& run, const std::vector<uint8_t>& in) {
  double s = 0;
  for (const auto& context : run.contexts) {
    if (context.id >= in.size() || !in[context.id]) continue;
    for (double bin : run.processor_of(context.id)) s += bin;
  }
  return s;
}

// The questions of the first pass, by their numbers in its ModelReplays.
struct FirstPassQuestions {
  size_t recorded = 0;              // the recorded configuration as it ran (the check)
  size_t base = 0;                  // ... alone, as every what-if is replayed
  std::optional<size_t> loaded;     // ... on the capacity other processes left it
  size_t critical = 0;              // threads apart, for the critical path
  std::vector<Grouping> groupings;  // --group, parsed
  std::vector<size_t> grouping_questions;
  std::vector<size_t> change_questions;  // one for each of Predictions::procedures
  std::vector<double> changed_cpu_s;     // ... the processor time the sampler counted in it
};

// The recording's own figures: its elapsed time (the unprofiled run's, with a --baseline)
// and the share of its processors other processes took.
Predictions recording_of(const profile::Run& run) {
  Predictions out;
  out.program = run.text(capture::run_keys::kProgram);
  out.processors = run.processors;
  out.observed_s = run.elapsed_s();  // the run's one elapsed time, as the report shows it
  if (run.info.count(capture::run_keys::kOtherCpuNs) && out.observed_s > 0) {
    out.other_share = std::min(1.0, run.number(capture::run_keys::kOtherCpuNs) * 1e-9 /
                                        (out.observed_s * std::max<uint32_t>(1, run.processors)));
  }
  if (const std::optional<Baseline> b = baseline_of(run)) {
    out.profiled_s = out.observed_s;
    out.observed_s = b->elapsed_s;
  } else if (out.observed_s > 0) {
    out.sampler_share = run.number(capture::run_keys::kSamplerCpuNs) * 1e-9 /
                        (out.observed_s * std::max<uint32_t>(1, run.processors));
  }
  return out;
}

// The recorded configuration as it ran (the check) and alone (the what-ifs' base), its
// replay on the capacity left when the machine was busy, and the critical path's
// configuration.
void ask_about_the_recording(const profile::Run& run, ModelReplays& first, Predictions& out,
                             FirstPassQuestions& q) {
  const uint32_t threads = thread_count(run);
  // Every processor gives the sampler its share: it runs on one of them at a time, every
  // period, and takes the processor from whichever thread runs there. So do a quiet
  // machine's other processes (a busy machine's are Predictions::loaded's to replay).
  auto as_it_ran = [&](double processors, double others) {
    SimulationConfig c = threads_sharing(threads, processors);
    c.capacity = std::max(1 - kMostTakenFromTheProgram, 1 - out.sampler_share - others);
    return c;
  };
  q.recorded = first.add_recorded(as_it_ran(run.processors, quiet_other_share(out)));
  q.base = first.add(threads_sharing(threads, run.processors), true);  // its figure: base_s
  if (recorded_busy(out) && *out.other_share < 1) {
    out.loaded = LoadedReplay{run.processors * (1 - *out.other_share), 0, {}};
    q.loaded = first.add_recorded(as_it_ran(out.loaded->processors, 0));
  }
  SimulationConfig path = threads_apart(threads);
  path.critical_path = true;
  q.critical = first.add(std::move(path), true);
}

// --group: each grouping asked.
void ask_groupings(const profile::Run& run, const PredictionRequest& request, ModelReplays& first,
                   FirstPassQuestions& q) {
  for (const std::string& spec : request.groupings) {
    try {
      q.groupings.push_back(parse_grouping(spec, run));
    } catch (const GroupingError& e) {
      throw PredictionError(e.what());
    }
    q.grouping_questions.push_back(first.add(threads_grouped(q.groupings.back().group_of)));
  }
}

// --zero, --speedup, --migrate: the recorded configuration with a procedure's contexts
// changed, into Predictions::procedures.
void ask_procedure_changes(const profile::Run& run, const PredictionRequest& request,
                           ModelReplays& first, Predictions& out, FirstPassQuestions& q) {
  const uint32_t threads = thread_count(run);
  const std::vector<UnpatchedProcedure> unpatched = unpatched_procedures(run);
  auto change = [&](const std::string& name, std::string what, double percent,
                    const std::function<void(SimulationConfig&)>& set) {
    auto [in, matched] = procedure_contexts(run, name);
    q.changed_cpu_s.push_back(processor_time_in(run, in));
    SimulationConfig c = threads_sharing(threads, run.processors);
    c.in_procedure = std::move(in);
    set(c);
    q.change_questions.push_back(first.add(std::move(c)));
    out.procedures.push_back({std::move(what), matched, percent, 0, 0, {}, std::nullopt});
    for (const UnpatchedProcedure& u : unpatched) {
      if (u.name == matched) out.procedures.back().turned_off_s = u.at_s;
    }
  };
  for (const std::string& name : request.zero) {
    change(name, "zero", 100, [](SimulationConfig& c) { c.speedup = 1; });
  }
  for (const auto& [name, percent] : request.speedup) {
    if (percent <= 0 || percent > 100) {
      throw PredictionError("--speedup " + name + "=" + std::to_string(percent) +
                            ": PCT must be in (0, 100]");
    }
    change(name, "speedup", percent, [p = percent](SimulationConfig& c) { c.speedup = p / 100; });
  }
  for (const std::string& name : request.migrate) {
    change(name, "migrate", 100, [](SimulationConfig& c) { c.migrate = true; });
  }
}

// What the first pass read of the trace and measured of the replays (the time taken is
// the last pass's to know).
TraceQuality trace_quality(const profile::Run& run, const ModelReplays& first,
                           const ReplayPass& pass, const FirstPassQuestions& q,
                           const WakeLatency& wake) {
  TraceQuality quality;
  quality.events = pass.assembler.events;
  quality.records = pass.assembler.records;
  quality.samples = pass.assembler.samples;
  quality.dropped = pass.assembler.dropped;
  quality.bytes = pass.trace.bytes;
  quality.complete = pass.trace.complete;
  quality.unpaired_waits = pass.assembler.unpaired_waits;
  quality.compensated_s = pass.assembler.compensated_ns / 1e9;
  quality.cpu_scale = costs_of(run).cpu_scale;
  quality.wake_latency_s = wake.idle_ns / 1e9;
  quality.wake_ups = wake.wake_ups;
  quality.forced_waits = first.likely(pass, q.recorded).forced_waits;
  for (const auto& r : pass.results)
    quality.peak_window = std::max(quality.peak_window, r.peak_window);
  return quality;
}

// The first pass's answers to every question but the searches'.
void answer_first_pass(const profile::Run& run, const std::vector<SchedulerModel>& models,
                       const ModelReplays& first, const ReplayPass& pass,
                       const FirstPassQuestions& q, Predictions& out) {
  if (q.loaded) {
    out.loaded->predicted_s = first.likely(pass, *q.loaded).elapsed_ns / 1e9;
    out.loaded->range = first.range_as_recorded(pass, *q.loaded);
  }
  const std::vector<double> recorded_by_model = first.seconds(pass, q.recorded);
  for (size_t m = 0; m < models.size(); ++m) {
    out.models.push_back(
        {models[m].name, recorded_by_model[m], first.contradicted()[m], first.recorded_only()[m]});
  }
  out.recorded_s = recorded_by_model[0];
  out.recorded_range = first.range_as_recorded(pass, q.recorded);
  out.base_s = first.likely(pass, q.base).elapsed_ns / 1e9;
  out.critical_path = describe_path(run, first.likely(pass, q.critical), out.observed_s);
  for (size_t i = 0; i < q.groupings.size(); ++i) {
    const size_t question = q.grouping_questions[i];
    out.groupings.push_back({grouping_spec(q.groupings[i]),
                             grouping_names(q.groupings[i], run),
                             first.likely(pass, question).elapsed_ns / 1e9,
                             first.range(pass, question),
                             {}});
  }
  // The change moves the answer in proportion to the procedure's time, which the sampler
  // counted in the profiled run: as far as that count can be off.
  const double run_s = run.elapsed_s();
  const double period_s = quality_of(run).period_kept_s(run_s);
  for (size_t i = 0; i < out.procedures.size(); ++i) {
    const SimulationResult& r = first.likely(pass, q.change_questions[i]);
    out.procedures[i].predicted_s = r.elapsed_ns / 1e9;
    out.procedures[i].unreceived_s = r.migrated_unreceived_ns / 1e9;
    out.procedures[i].range = first.range(pass, q.change_questions[i]);
    widen_by_sampling(out.procedures[i].range, out.base_s - out.procedures[i].predicted_s,
                      q.changed_cpu_s[i],
                      sampling_bound(q.changed_cpu_s[i], period_s, run_s * run.processors));
  }
}

// Groupings that split a task pool (task_pools.h), asked or listed by a search: replayed
// again, in one more pass, with the pool's groups merged, as the pool balances itself. In
// every split pool measured, the program ran within 5% of that replay, never near the first
// (each thread kept the tasks it ran: 24-34% over), which the answer names beside its range,
// not in it. A search's candidates were ranked on the first; its list is ordered
// again.
void balance_split_pools(const profile::Run& run, const std::vector<SchedulerModel>& models,
                         const ModelReplays& first, const ReplayPass& pass, TracePasses& passes,
                         Predictions& out) {
  const std::vector<TaskPool> pools = task_pools(run, pass.signalled_conditions);
  if (pools.empty()) return;
  ModelReplays pooled(models);
  pooled.leave_out(first.left_out());
  std::vector<std::pair<GroupingPrediction*, size_t>> asked;  // (answer, its pooled question)
  auto ask = [&](GroupingPrediction& g) {
    const Grouping grouping = parse_grouping(g.spec, run);
    if (std::optional<SimulationConfig> c = pooled_grouping(grouping, pools)) {
      asked.emplace_back(&g, pooled.add(*c));
      g.split_pools = split_pools(grouping, pools, run);
    }
  };
  for (GroupingPrediction& g : out.groupings) ask(g);
  for (GroupingSearch& s : out.searches) {
    for (GroupingPrediction& g : s.best) ask(g);
  }
  if (asked.empty()) return;
  const ReplayPass again = passes.replay(pooled.configs());
  for (const auto& [g, question] : asked) {
    g->pinned_s = g->predicted_s;
    g->predicted_s = pooled.likely(again, question).elapsed_ns / 1e9;
    g->range = pooled.range(again, question);
  }
  for (GroupingSearch& s : out.searches) {
    std::stable_sort(s.best.begin(), s.best.end(),
                     [](const auto& a, const auto& b) { return a.predicted_s < b.predicted_s; });
  }
}

}  // namespace

WakeLatencyPass::WakeLatencyPass(const TraceOpener& open)
    : result_(std::async(std::launch::async, [source = open(), stop = stop_]() mutable {
                return measure_wake_latency(std::move(source), stop.get());
              }).share()) {}

Predictions predict(const profile::Run& run, const TraceOpener& open,
                    const PredictionRequest& request) {
  check_trace(run, request);  // before the pass opens a trace the run may not have
  const WakeLatencyPass wake(open);
  return predict(run, open, request, wake);
}

bool recorded_busy(const Predictions& p) {
  constexpr double kBusy = 0.05;  // of the processors' time: more than the noise of ticks
  return p.other_share && *p.other_share > kBusy;
}

double quiet_other_share(const Predictions& p) {
  return recorded_busy(p) || p.profiled_s > 0 ? 0 : p.other_share.value_or(0);
}

// The first pass asks every question under every model (the searches' candidates under the
// most likely one); the searches then take passes of their own.
Predictions predict(const profile::Run& run, const TraceOpener& open,
                    const PredictionRequest& request, const WakeLatencyPass& wake_pass) {
  check_trace(run, request);
  if (request.models.empty()) throw PredictionError("no scheduler model to replay with");
  Predictions out = recording_of(run);
  ModelReplays first(request.models);
  FirstPassQuestions q;
  ask_about_the_recording(run, first, out, q);
  ask_groupings(run, request, first, q);
  ask_procedure_changes(run, request, first, out, q);
  std::vector<SearchState> searches = start_searches(run, request, first);

  // The wake-up latency is measured by a pass of its own (WakeLatencyPass), beside this
  // first one's reading and assembly.
  TracePasses passes(run, open, wake_pass.result());
  const ReplayPass pass = passes.replay(first.configs());
  first.leave_out(contradicted_models(first.seconds(pass, q.recorded), out.observed_s));
  out.quality = trace_quality(run, first, pass, q, wake_pass.result().get());
  answer_first_pass(run, request.models, first, pass, q, out);
  for (SearchState& s : searches) take_first_answers(first, pass, s);
  for (SearchState& s : searches) search_locally(request.models, passes, s);
  out.searches = list_best_groupings(run, request, first, pass, passes, searches);
  balance_split_pools(run, request.models, first, pass, passes, out);

  out.quality.seconds = passes.seconds();
  out.quality.records_per_second =
      passes.seconds() > 0 ? static_cast<double>(passes.records()) / passes.seconds() : 0;
  return out;
}

std::string pool_note(const GroupingPrediction& g) {
  if (g.split_pools.empty()) return {};
  return g.split_pools + " split over processors: replayed with whichever is free taking the " +
         "next task (" + text::seconds(g.pinned_s) + " if each keeps the tasks it ran)";
}

BestGrouping best_grouping(const std::vector<GroupingPrediction>& groupings) {
  BestGrouping out;
  if (groupings.empty()) return out;
  std::vector<size_t> order(groupings.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return groupings[a].predicted_s < groupings[b].predicted_s;
  });
  std::vector<RangedFigure> ordered;
  for (size_t i : order) {
    const GroupingPrediction& g = groupings[i];
    ordered.push_back({g.predicted_s, g.range.low_s, g.range.high_s});
  }
  out.best = order[0];
  for (size_t k = 1; k < ordered.size(); ++k) {
    if (!ranges_separate(ordered[0], ordered[k])) out.tied.push_back(order[k]);
  }
  return out;
}

}  // namespace quartz::analysis
