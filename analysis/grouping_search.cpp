#include "analysis/grouping_search.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>

namespace quartz::analysis {
namespace {

constexpr uint32_t kMaxRounds = 8;  // passes a local search makes at most

// Where a listed grouping's range is replayed: a question of the first pass, or of the
// ranges' pass.
struct RangeQuestion {
  bool first_pass = false;
  size_t question = 0;
};

// By search, a question for each grouping listed (none: one model, its figure known).
using RangeQuestions = std::vector<std::vector<std::optional<RangeQuestion>>>;

RangeQuestions choose_listed(const profile::Run& run, const PredictionRequest& request,
                             const ModelReplays& first, ModelReplays& ranges,
                             std::vector<SearchState>& searches) {
  RangeQuestions range_questions(searches.size());
  for (size_t i = 0; i < searches.size(); ++i) {
    SearchState& s = searches[i];
    std::sort(s.tried.begin(), s.tried.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::set<std::string> specs;
    for (const auto& [ns, g] : s.tried) {
      const std::string spec = grouping_spec(g);
      if (!specs.insert(spec).second) continue;
      s.report.best.push_back({spec, grouping_names(g, run), ns / 1e9, {}, {}, 0});
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
  return range_questions;
}

}  // namespace

std::vector<SearchState> start_searches(const profile::Run& run, const PredictionRequest& request,
                                        ModelReplays& first) {
  const uint32_t threads = thread_count(run);
  std::vector<SearchState> searches;
  std::vector<double> cpu(threads, 0);
  for (const auto& t : run.threads) cpu[t.index] = static_cast<double>(t.cpu_ns);
  for (uint32_t cores : request.search_cores) {
    if (cores == 0) throw PredictionError("--cores must be at least 1");
    SearchState s;
    s.report.cores = cores;
    const uint32_t groups = std::min(cores, std::max(threads, 1u));
    s.candidates = all_groupings(threads, groups, request.exhaustive_limit);
    s.report.exhaustive = !s.candidates.empty();
    if (s.candidates.empty()) s.candidates.push_back(balanced_grouping(cpu, groups));
    searches.push_back(std::move(s));
  }
  // On as many processors as recorded, all sharing them is the recording alone: its most
  // likely replay is the first pass's already.
  for (SearchState& s : searches) s.shared = first.add(threads_sharing(threads, s.report.cores));
  for (SearchState& s : searches) {
    s.first_candidate = first.questions();
    for (const Grouping& g : s.candidates) first.add(threads_grouped(g.group_of), true);
  }
  return searches;
}

void take_first_answers(const ModelReplays& first, const ReplayPass& pass, SearchState& s) {
  s.report.shared_s = first.likely(pass, s.shared).elapsed_ns / 1e9;
  s.report.shared_range = first.range(pass, s.shared);
  for (size_t c = 0; c < s.candidates.size(); ++c) {
    s.tried.emplace_back(first.likely(pass, s.first_candidate + c).elapsed_ns, s.candidates[c]);
  }
  s.report.candidates = s.candidates.size();
  s.report.rounds = 1;
}

void search_locally(const std::vector<SchedulerModel>& models, TracePasses& passes,
                    SearchState& s) {
  if (s.report.exhaustive) return;
  auto best = *std::min_element(s.tried.begin(), s.tried.end(),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  while (s.report.rounds < kMaxRounds) {
    std::vector<Grouping> around = neighbours(best.second);
    if (around.empty()) break;
    ModelReplays round(models);
    for (const Grouping& g : around) round.add(threads_grouped(g.group_of), true);
    const ReplayPass more = passes.replay(round.configs());
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

std::vector<GroupingSearch> list_best_groupings(const profile::Run& run,
                                                const PredictionRequest& request,
                                                const ModelReplays& first, const ReplayPass& pass,
                                                TracePasses& passes,
                                                std::vector<SearchState>& searches) {
  ModelReplays ranges(request.models);
  ranges.leave_out(first.left_out());
  const RangeQuestions range_questions = choose_listed(run, request, first, ranges, searches);
  std::optional<ReplayPass> second;
  if (ranges.questions() > 0) second = passes.replay(ranges.configs());
  std::vector<GroupingSearch> out;
  for (size_t i = 0; i < searches.size(); ++i) {
    SearchState& s = searches[i];
    for (size_t g = 0; g < s.report.best.size(); ++g) {
      GroupingPrediction& b = s.report.best[g];
      const std::optional<RangeQuestion>& q = range_questions[i][g];
      if (!q) {
        b.range = range_over(std::vector<double>{b.predicted_s});
      } else {
        b.range =
            q->first_pass ? first.range(pass, q->question) : ranges.range(*second, q->question);
      }
    }
    out.push_back(std::move(s.report));
  }
  return out;
}

}  // namespace quartz::analysis
