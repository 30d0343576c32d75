#include "analysis/prediction.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "analysis/grouping.h"
#include "analysis/profile_view.h"
#include "analysis/replay.h"
#include "analysis/simulation.h"
#include "analysis/text_format.h"
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

// Reads the trace once, replaying it in every configuration at the same time, with the
// wake-up latency measured (or being measured) from it.
ReplayPass replay(const profile::Run& run, const TraceOpener& open,
                  std::vector<SimulationConfig> configs,
                  const std::shared_future<WakeLatency>& wake) {
  return replay_trace(open(), thread_count(run), costs_of(run), std::move(configs), 0, wake);
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

// The kListed largest, largest first (equal times by name): a critical path through
// 100,000 locks lists ten of them.
template <typename NamedNs>
std::vector<NamedTime> top(const NamedNs& values) {
  std::vector<std::pair<const std::string*, double>> all;
  all.reserve(values.size());
  for (const auto& [name, ns] : values) all.emplace_back(&name, ns);
  const size_t listed = std::min(kListed, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(listed), all.end(),
                    [](const auto& a, const auto& b) {
                      return a.second != b.second ? a.second > b.second : *a.first < *b.first;
                    });
  std::vector<NamedTime> out;
  for (size_t i = 0; i < listed; ++i) out.push_back({*all[i].first, all[i].second / 1e9});
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
  std::map<std::string, double> threads, procedures;
  std::unordered_map<std::string, double> locks;
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
  // An object's name is its own (object_names tells apart the objects that share one), so
  // a path through 100,000 locks names only those that can be among the longest held.
  const auto object_name = object_names(run);
  std::vector<std::pair<const std::string*, double>> held;  // objects' names, by the name
  held.reserve(p.lock_ns.size());
  for (const auto& [address, ns] : p.lock_ns) {
    auto object = object_name.find(address);
    if (object != object_name.end()) {
      held.emplace_back(&object->second, ns);
    } else {
      locks[display_name(run, address)] += ns;  // no object of the run: names may repeat
    }
  }
  for (const auto& [name, ns] : locks) held.emplace_back(&name, ns);
  if (held.size() > kListed) {
    std::nth_element(held.begin(), held.begin() + (kListed - 1), held.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const double least = held[kListed - 1].second;
    std::erase_if(held, [&](const auto& h) { return h.second < least; });
  }
  std::unordered_map<std::string, double> longest;
  for (const auto& [name, ns] : held) longest[*name] += ns;
  cp.threads = top(threads);
  cp.procedures = top(procedures);
  cp.locks = top(longest);
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

// Whether other processes took more than kBusy of the processors during the recording.
constexpr double kBusy = 0.05;  // of the processors' time: more than the noise of ticks
bool recorded_busy(const Predictions& p) {
  return p.other_share && *p.other_share > kBusy;
}

// Every question replayed under every model in one pass. What would replay alike twice is
// replayed once: the same question (same_question) under models that replay it alike
// (SchedulerModel::same_as), however it was asked (--cores 1's "all sharing one processor"
// is its one grouping).
class ModelReplays {
 public:
  explicit ModelReplays(const std::vector<SchedulerModel>& models) : models_(models) {}

  // Adds a question under every model (the most likely only, when `likely_only`); returns
  // its number.
  size_t add(const SimulationConfig& c, bool likely_only = false) {
    return add_from(c, 0, likely_only ? 1 : models_.size(), std::nullopt);
  }
  // Adds a question whose most likely figure is known already (a search's candidate) under
  // the other models.
  size_t add_others(const SimulationConfig& c, double likely_s) {
    return add_from(c, 1, models_.size(), likely_s);
  }
  // The question that asked `c` under every model, if one did.
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
  // The question's predicted seconds under each model replayed for it.
  std::vector<double> seconds(const ReplayPass& pass, size_t question) const {
    const Question& q = questions_[question];
    std::vector<double> out;
    if (q.likely_s) out.push_back(*q.likely_s);
    for (size_t slot : q.slots) out.push_back(pass.results[slot].elapsed_ns / 1e9);
    return out;
  }

 private:
  struct Question {
    std::vector<size_t> slots;       // a result per model replayed, from the first one
    std::optional<double> likely_s;  // the most likely figure, when known before
  };

  static size_t hash_of(const SimulationConfig& c) {
    size_t h = std::hash<std::string_view>{}(std::string_view(
        reinterpret_cast<const char*>(c.group_of_thread.data()), c.group_of_thread.size() * 4));
    auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (double cores : c.cores) mix(std::hash<double>{}(cores));
    mix(std::hash<std::string_view>{}(std::string_view(
        reinterpret_cast<const char*>(c.in_procedure.data()), c.in_procedure.size())));
    mix(std::hash<double>{}(c.speedup));
    mix(static_cast<size_t>(c.migrate) | static_cast<size_t>(c.critical_path) << 1);
    return h;
  }

  size_t add_from(const SimulationConfig& c, size_t first, size_t end,
                  std::optional<double> likely_s) {
    const bool pools =
        std::any_of(c.cores.begin(), c.cores.end(), [](double cores) { return cores >= 2; });
    const size_t hash = hash_of(c);
    Question q{{}, likely_s};
    for (size_t m = first; m < end; ++m) q.slots.push_back(slot_for(c, hash, models_[m], pools));
    questions_.push_back(std::move(q));
    if (first == 0 && end == models_.size()) every_model_.emplace(hash, questions_.size() - 1);
    return questions_.size() - 1;
  }
  // The configuration replaying `c` as `model` would, added if none does yet.
  size_t slot_for(const SimulationConfig& c, size_t hash, const SchedulerModel& model, bool pools) {
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

  const std::vector<SchedulerModel>& models_;
  std::vector<SimulationConfig> configs_;
  std::vector<Question> questions_;
  std::unordered_multimap<size_t, size_t> slots_;  // a question's hash: its configurations
  std::unordered_multimap<size_t, size_t>
      every_model_;  // a question's hash: questions asked under every model
};

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

Predictions predict(const profile::Run& run, const TraceOpener& open,
                    const PredictionRequest& request, const WakeLatencyPass& wake_pass) {
  check_trace(run, request);
  const std::shared_future<WakeLatency>& wake = wake_pass.result();
  if (request.models.empty()) throw PredictionError("no scheduler model to replay with");
  const uint32_t threads = thread_count(run);
  Predictions out;
  out.program = run.text(capture::run_keys::kProgram);
  out.processors = run.processors;

  // The first pass: the recorded configuration, the critical path, and every question
  // that needs no search, each under every model; the searches' candidates under the
  // most likely one.
  ModelReplays first(request.models);
  const size_t recorded = first.add(threads_sharing(threads, run.processors));
  out.observed_s = run.elapsed_s();  // the run's one elapsed time, as the report shows it
  if (run.info.count(capture::run_keys::kOtherCpuNs) && out.observed_s > 0) {
    out.other_share = std::min(1.0, run.number(capture::run_keys::kOtherCpuNs) * 1e-9 /
                                        (out.observed_s * std::max<uint32_t>(1, run.processors)));
  }
  if (const std::optional<Baseline> b = baseline_of(run)) {
    out.profiled_s = out.observed_s;
    out.observed_s = b->elapsed_s;
  }
  std::optional<size_t> loaded;
  if (recorded_busy(out) && *out.other_share < 1) {
    out.loaded = LoadedReplay{run.processors * (1 - *out.other_share), 0, {}};
    loaded = first.add(threads_sharing(threads, out.loaded->processors));
  }
  SimulationConfig path = threads_apart(threads);
  path.critical_path = true;
  const size_t critical = first.add(std::move(path), true);
  std::vector<Grouping> asked;
  std::vector<size_t> asked_questions;
  for (const std::string& spec : request.groupings) {
    try {
      asked.push_back(parse_grouping(spec, run));
    } catch (const GroupingError& e) {
      throw PredictionError(e.what());
    }
    asked_questions.push_back(first.add(threads_grouped(asked.back().group_of)));
  }
  std::vector<size_t> change_questions;
  const std::vector<UnpatchedProcedure> unpatched = unpatched_procedures(run);
  auto change = [&](const std::string& name, std::string what, double percent,
                    const std::function<void(SimulationConfig&)>& set) {
    auto [in, matched] = procedure_contexts(run, name);
    SimulationConfig c = threads_sharing(threads, run.processors);
    c.in_procedure = std::move(in);
    set(c);
    change_questions.push_back(first.add(std::move(c)));
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
  // Searches: every grouping at once when there are few, else a local search from a
  // balanced start, one round per pass.
  struct Search {
    GroupingSearch report;
    std::vector<Grouping> candidates;
    size_t shared = 0, first_candidate = 0;
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
  for (Search& s : searches) {
    // On as many processors as recorded, all sharing them is the recorded configuration.
    s.shared = s.report.cores == run.processors
                   ? recorded
                   : first.add(threads_sharing(threads, s.report.cores));
  }
  for (Search& s : searches) {
    s.first_candidate = first.questions();
    for (const Grouping& g : s.candidates) first.add(threads_grouped(g.group_of), true);
  }

  // The wake-up latency is measured by a pass of its own over the trace (WakeLatencyPass),
  // beside the first replay's reading and assembly (a fifth of a one-model prediction when
  // it was first).
  ReplayPass pass = replay(run, open, first.configs(), wake);
  out.quality.events = pass.assembler.events;
  out.quality.records = pass.assembler.records;
  out.quality.samples = pass.assembler.samples;
  out.quality.dropped = pass.assembler.dropped;
  out.quality.bytes = pass.trace.bytes;
  out.quality.complete = pass.trace.complete;
  out.quality.unpaired_waits = pass.assembler.unpaired_waits;
  out.quality.compensated_s = pass.assembler.compensated_ns / 1e9;
  out.quality.cpu_scale = costs_of(run).cpu_scale;
  out.quality.wake_latency_s = wake.get().idle_ns / 1e9;
  out.quality.wake_ups = wake.get().wake_ups;
  out.quality.forced_waits = first.likely(pass, recorded).forced_waits;
  double replay_seconds = pass.seconds;
  uint64_t records_replayed = pass.assembler.records;
  for (const auto& r : pass.results)
    out.quality.peak_window = std::max(out.quality.peak_window, r.peak_window);
  if (loaded) {
    const std::vector<double> by_model = first.seconds(pass, *loaded);
    out.loaded->predicted_s = by_model[0];
    out.loaded->range = range_over(by_model);
  }
  const std::vector<double> recorded_by_model = first.seconds(pass, recorded);
  for (size_t m = 0; m < request.models.size(); ++m) {
    out.models.push_back({request.models[m].name, recorded_by_model[m]});
  }
  auto range_of = [&](const ReplayPass& from, const ModelReplays& replays, size_t question) {
    return range_over(replays.seconds(from, question));
  };
  out.recorded_s = recorded_by_model[0];
  out.recorded_range = range_over(recorded_by_model);
  out.critical_path = describe_path(run, first.likely(pass, critical), out.observed_s);
  for (size_t i = 0; i < asked.size(); ++i) {
    const size_t q = asked_questions[i];
    out.groupings.push_back({grouping_spec(asked[i]), grouping_names(asked[i], run),
                             first.likely(pass, q).elapsed_ns / 1e9, range_of(pass, first, q)});
  }
  for (size_t i = 0; i < out.procedures.size(); ++i) {
    const SimulationResult& r = first.likely(pass, change_questions[i]);
    out.procedures[i].predicted_s = r.elapsed_ns / 1e9;
    out.procedures[i].unreceived_s = r.migrated_unreceived_ns / 1e9;
    out.procedures[i].range = range_of(pass, first, change_questions[i]);
  }
  for (Search& s : searches) {
    s.report.shared_s = first.likely(pass, s.shared).elapsed_ns / 1e9;
    s.report.shared_range = range_of(pass, first, s.shared);
    for (size_t c = 0; c < s.candidates.size(); ++c) {
      s.tried.emplace_back(first.likely(pass, s.first_candidate + c).elapsed_ns, s.candidates[c]);
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
      ModelReplays round(request.models);
      for (const Grouping& g : around) round.add(threads_grouped(g.group_of), true);
      ReplayPass more = replay(run, open, round.configs(), wake);
      replay_seconds += more.seconds;
      records_replayed += more.assembler.records;
      ++s.report.rounds;
      s.report.candidates += around.size();
      bool improved = false;
      for (size_t c = 0; c < around.size(); ++c) {
        const double ns = round.likely(more, c).elapsed_ns;
        s.tried.emplace_back(ns, around[c]);
        if (ns < best.first * (1 - 1e-9)) {
          best = {ns, around[c]};
          improved = true;
        }
      }
      if (!improved) break;
    }
  }
  // The groupings each search lists, then one more pass for the ranges the first did not
  // replay under every model.
  struct RangeQuestion {
    bool first_pass = false;
    size_t question = 0;
  };
  ModelReplays ranges(request.models);
  // By search, a question for each grouping listed (none: one model, its figure known).
  std::vector<std::vector<std::optional<RangeQuestion>>> range_questions(searches.size());
  for (size_t i = 0; i < searches.size(); ++i) {
    Search& s = searches[i];
    std::sort(s.tried.begin(), s.tried.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::set<std::string> specs;
    for (const auto& [ns, g] : s.tried) {
      const std::string spec = grouping_spec(g);
      if (!specs.insert(spec).second) continue;
      s.report.best.push_back({spec, grouping_names(g, run), ns / 1e9, {}});
      const SimulationConfig c = threads_grouped(g.group_of);
      if (const std::optional<size_t> q = first.asked_under_every_model(c)) {
        range_questions[i].push_back(RangeQuestion{true, *q});
      } else if (request.models.size() > 1) {
        range_questions[i].push_back(RangeQuestion{false, ranges.add_others(c, ns / 1e9)});
      } else {
        range_questions[i].push_back(std::nullopt);
      }
      if (s.report.best.size() == request.best) break;
    }
  }
  std::optional<ReplayPass> second;
  if (ranges.questions() > 0) {
    second = replay(run, open, ranges.configs(), wake);
    replay_seconds += second->seconds;
    records_replayed += second->assembler.records;
  }
  for (size_t i = 0; i < searches.size(); ++i) {
    Search& s = searches[i];
    for (size_t g = 0; g < s.report.best.size(); ++g) {
      GroupingPrediction& b = s.report.best[g];
      const std::optional<RangeQuestion>& q = range_questions[i][g];
      if (!q) {
        b.range = range_over(std::vector<double>{b.predicted_s});
      } else {
        b.range = q->first_pass ? range_of(pass, first, q->question)
                                : range_of(*second, ranges, q->question);
      }
    }
    out.searches.push_back(std::move(s.report));
  }
  out.quality.seconds = replay_seconds;
  out.quality.records_per_second =
      replay_seconds > 0 ? static_cast<double>(records_replayed) / replay_seconds : 0;
  return out;
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

// How far outside its range the recorded time may fall before that is a caution: the
// run-to-run noise of a program's elapsed time (unequal_workers pinned, three runs at a time
// a minute apart: medians 0.651 and 0.663 s). minimap2's recording, 0.2% above a range its
// four models agreed on to 0.1%, read "CAUTION ... 0% above".
constexpr double kOutsideRangeNoise = 0.01;
// A critical path more than this off the processor bounds every answer by time the replay
// cannot change (io_wait's I/O; before signals were traced, pbzip2's signal thread, in
// sigwait until main's pthread_kill at the end: its whole path, every grouping +0.0%).
constexpr double kPathOffProcessor = 0.5;

std::vector<TrustWarning> trust_warnings(const Predictions& p) {
  std::vector<TrustWarning> out;
  const auto percent = [](double share) { return std::to_string(std::lround(100 * share)) + "%"; };
  const double error = p.observed_s > 0 ? (p.recorded_s - p.observed_s) / p.observed_s : 0;
  const bool busy = recorded_busy(p);
  // A busy machine first: it explains the replay's error and the range's miss below.
  if (busy) {
    std::string loaded;
    if (p.loaded) {
      loaded = "; with the " + text::format("%.2f", p.loaded->processors) +
               " processors they left, the recording replays to " +
               text::seconds(p.loaded->predicted_s) + " (" +
               text::change(p.loaded->predicted_s, p.observed_s) + ")";
    }
    out.push_back({"busy_machine", "other processes took " + percent(*p.other_share) +
                                       " of the processors while this was recorded" + loaded +
                                       "; the other predictions are for the program alone on "
                                       "an idle machine"});
  }
  if (std::fabs(error) > 0.10) {
    out.push_back(
        {"replay_error", "the replay of the recording is " + percent(std::fabs(error)) +
                             (error < 0 ? " short of" : " over") +
                             " the recorded time: every prediction carries an error of that order" +
                             (busy ? " (the machine was busy: above)" : "")});
  }
  const PredictionRange& r = p.recorded_range;
  const double miss = p.observed_s <= 0         ? 0
                      : p.observed_s < r.low_s  ? 1 - p.observed_s / r.low_s
                      : p.observed_s > r.high_s ? p.observed_s / r.high_s - 1
                                                : 0;
  if (p.models.size() > 1 && miss > kOutsideRangeNoise) {
    out.push_back({"outside_range", "the recorded time is " + percent(miss) +
                                        (p.observed_s < r.low_s ? " below" : " above") +
                                        " the range its own configuration replays to: the "
                                        "other ranges can miss by as much"});
  }
  const CriticalPath& path = p.critical_path;
  if (path.length_s > 0 && path.delay_s > kPathOffProcessor * path.length_s) {
    out.push_back({"path_off_processor",
                   percent(path.delay_s / path.length_s) + " of the critical path (" +
                       text::seconds(path.delay_s) +
                       ") is time off the processor: I/O, sleep, or a wait Quartz does not "
                       "trace (a pipe, a signalfd, the program's own futex); every replay keeps "
                       "it as recorded, so no answer goes below it"});
  }
  for (const ProcedurePrediction& c : p.procedures) {
    if (!c.turned_off_s) continue;
    out.push_back({"procedure_turned_off",
                   c.procedure + "'s entry was turned off by the overhead budget " +
                       text::seconds(*c.turned_off_s) +
                       " into the run: its time since is its callers' in the trace, so the "
                       "change leaves that out; record with --procedures '" +
                       c.procedure + "' (or --budget 0) to ask about it"});
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
