#include "analysis/prediction_json.h"

#include <nlohmann/json.hpp>
#include <span>

#include "analysis/trust_warnings.h"

namespace quartz::analysis {
namespace {

using nlohmann::json;

json named_json(const std::vector<NamedTime>& list) {
  auto a = json::array();
  for (const auto& n : list) a.push_back({{"name", n.name}, {"s", n.seconds}});
  return a;
}

std::vector<NamedTime> named_from(const json& a) {
  std::vector<NamedTime> out;
  for (const auto& n : a) out.push_back({n.at("name").get<std::string>(), n.at("s").get<double>()});
  return out;
}

// A prediction's models, in every range's by_model_s order.
using Models = std::span<const ModelCheck>;

// A range's fields, added to an answer's object: "low_s", "high_s", "width" (of the most
// likely figure `likely_s`), "by_model_s"; "low_model" and "high_model", which give its ends,
// and "why" a range wider than kWideRange is (none: not wide). `as_recorded`: the recorded
// configuration's, where every model the recording does not rule out counts.
void add_range(json& j, double likely_s, const PredictionRange& r, Models models,
               bool as_recorded = false) {
  j["low_s"] = r.low_s;
  j["high_s"] = r.high_s;
  j["width"] = relative_width(likely_s, r);
  j["by_model_s"] = r.by_model_s;
  const RangeSpan span = range_span(likely_s, r, models, as_recorded);
  j["low_model"] = span.low_model;
  j["high_model"] = span.high_model;
  j["why"] = span.why.empty() ? json(nullptr) : json(span.why);
  j["sampling_s"] = r.sampling_s;
}

// Stored before ranges: the single figure, as a range of one model.
PredictionRange range_from(const json& j, double likely_s) {
  PredictionRange r;
  r.low_s = j.value("low_s", likely_s);
  r.high_s = j.value("high_s", likely_s);
  r.by_model_s = j.value("by_model_s", std::vector<double>{likely_s});
  r.sampling_s = j.value("sampling_s", 0.0);  // stored since procedure changes widen by it
  return r;
}

json model_json(const ModelCheck& m) {
  return {{"name", m.name},
          {"recorded_s", m.recorded_s},
          {"contradicted", m.contradicted},
          {"recorded_only", m.recorded_only}};
}

ModelCheck model_from(const json& m) {
  return {m.at("name").get<std::string>(), m.at("recorded_s").get<double>(),
          m.value("contradicted", false), m.value("recorded_only", false)};
}

json loaded_json(const LoadedReplay& l, Models models) {
  json j{{"processors", l.processors}, {"predicted_s", l.predicted_s}};
  add_range(j, l.predicted_s, l.range, models, true);
  return j;
}

LoadedReplay loaded_from(const json& l) {
  const double likely_s = l.at("predicted_s").get<double>();
  return {l.at("processors").get<double>(), likely_s, range_from(l, likely_s)};
}

json trust_json(const TrustWarning& w) {
  return {{"reason", w.reason}, {"text", w.text}};
}

json critical_path_json(const CriticalPath& cp) {
  return {{"length_s", cp.length_s},
          {"share", cp.share},
          {"cpu_s", cp.cpu_s},
          {"delay_s", cp.delay_s},
          {"threads", named_json(cp.threads)},
          {"procedures", named_json(cp.procedures)},
          {"locks", named_json(cp.locks)}};
}

CriticalPath critical_path_from(const json& cp) {
  return {cp.at("length_s").get<double>(), cp.at("share").get<double>(),
          cp.at("cpu_s").get<double>(),    cp.at("delay_s").get<double>(),
          named_from(cp.at("threads")),    named_from(cp.at("procedures")),
          named_from(cp.at("locks"))};
}

json grouping_json(const GroupingPrediction& g, Models models) {
  json j{{"spec", g.spec}, {"names", g.names}, {"predicted_s", g.predicted_s}};
  add_range(j, g.predicted_s, g.range, models);
  j["split_pools"] = g.split_pools;  // since split pools balance themselves
  j["pinned_s"] = g.pinned_s;
  return j;
}

GroupingPrediction grouping_from(const json& j) {
  const double likely_s = j.at("predicted_s").get<double>();
  return {j.at("spec").get<std::string>(),
          j.at("names").get<std::string>(),
          likely_s,
          range_from(j, likely_s),
          j.value("split_pools", std::string()),
          j.value("pinned_s", 0.0)};
}

// Which grouping is best, or which are not told apart (prediction.h best_grouping), by
// index into the list it was made of.
json best_json(const BestGrouping& b) {
  return {{"best", b.best}, {"separated", b.tied.empty()}, {"tied", b.tied}};
}

json search_json(const GroupingSearch& s, Models models) {
  auto best = json::array();
  for (const auto& g : s.best) best.push_back(grouping_json(g, models));
  json search{{"cores", s.cores},   {"exhaustive", s.exhaustive}, {"candidates", s.candidates},
              {"rounds", s.rounds}, {"shared_s", s.shared_s},     {"best", best}};
  add_range(search["shared_range"], s.shared_s, s.shared_range, models);
  if (!s.best.empty()) search["verdict"] = best_json(best_grouping(s.best));
  return search;
}

GroupingSearch search_from(const json& s) {
  GroupingSearch search;
  search.cores = s.at("cores").get<uint32_t>();
  search.exhaustive = s.at("exhaustive").get<bool>();
  search.candidates = s.at("candidates").get<uint64_t>();
  search.rounds = s.at("rounds").get<uint32_t>();
  search.shared_s = s.at("shared_s").get<double>();
  search.shared_range = range_from(s.value("shared_range", json::object()), search.shared_s);
  for (const auto& g : s.at("best")) search.best.push_back(grouping_from(g));
  return search;
}

json procedure_change_json(const ProcedurePrediction& c, Models models) {
  json change{{"change", c.change},
              {"procedure", c.procedure},
              {"percent", c.percent},
              {"predicted_s", c.predicted_s},
              {"unreceived_s", c.unreceived_s},
              {"turned_off_s", c.turned_off_s ? json(*c.turned_off_s) : json(nullptr)}};
  add_range(change, c.predicted_s, c.range, models);
  return change;
}

ProcedurePrediction procedure_change_from(const json& c) {
  const double likely_s = c.at("predicted_s").get<double>();
  ProcedurePrediction change{c.at("change").get<std::string>(),
                             c.at("procedure").get<std::string>(),
                             c.at("percent").get<double>(),
                             likely_s,
                             c.at("unreceived_s").get<double>(),
                             range_from(c, likely_s),
                             std::nullopt};
  if (const auto off = c.find("turned_off_s"); off != c.end() && off->is_number()) {
    change.turned_off_s = off->get<double>();
  }
  return change;
}

// `baseline`: the replays' processor time was scaled to an unprofiled run.
json trace_json(const TraceQuality& q, bool baseline) {
  return {{"events", q.events},
          {"records", q.records},
          {"samples", q.samples},
          {"dropped", q.dropped},
          {"bytes", q.bytes},
          {"complete", q.complete},
          {"unpaired_waits", q.unpaired_waits},
          {"forced_waits", q.forced_waits},
          {"compensated_s", q.compensated_s},
          {"correction", baseline ? "baseline" : "calibrated"},
          {"cpu_scale", q.cpu_scale},
          {"wake_latency_s", q.wake_latency_s},
          {"wake_ups", q.wake_ups},
          {"peak_window", q.peak_window},
          {"seconds", q.seconds},
          {"records_per_second", q.records_per_second}};
}

TraceQuality trace_from(const json& q) {
  TraceQuality quality;
  quality.events = q.at("events").get<uint64_t>();
  quality.records = q.at("records").get<uint64_t>();
  quality.samples = q.at("samples").get<uint64_t>();
  quality.dropped = q.at("dropped").get<uint64_t>();
  quality.bytes = q.at("bytes").get<uint64_t>();
  quality.complete = q.at("complete").get<bool>();
  quality.unpaired_waits = q.at("unpaired_waits").get<uint64_t>();
  quality.forced_waits = q.at("forced_waits").get<uint64_t>();
  quality.compensated_s = q.at("compensated_s").get<double>();
  quality.cpu_scale = q.value("cpu_scale", 1.0);
  quality.wake_latency_s = q.value("wake_latency_s", 0.0);  // stored before it was measured
  quality.wake_ups = q.value("wake_ups", uint64_t{0});
  quality.peak_window = q.at("peak_window").get<uint64_t>();
  quality.seconds = q.at("seconds").get<double>();
  quality.records_per_second = q.at("records_per_second").get<double>();
  return quality;
}

}  // namespace

std::string predictions_json(const Predictions& p) {
  json j;
  j["program"] = p.program;
  j["processors"] = p.processors;
  j["observed_s"] = p.observed_s;
  if (p.profiled_s > 0) j["profiled_s"] = p.profiled_s;
  j["recorded_s"] = p.recorded_s;
  add_range(j["recorded_range"], p.recorded_s, p.recorded_range, p.models, true);
  j["sampler_share"] = p.sampler_share;
  j["base_s"] = p.base_s;
  auto& models = j["models"] = json::array();
  for (const ModelCheck& m : p.models) models.push_back(model_json(m));
  j["other_share"] = p.other_share ? json(*p.other_share) : json(nullptr);
  j["loaded"] = p.loaded ? loaded_json(*p.loaded, p.models) : json(nullptr);
  auto& trust = j["trust"] = json::array();
  for (const TrustWarning& w : trust_warnings(p)) trust.push_back(trust_json(w));
  j["critical_path"] = critical_path_json(p.critical_path);
  auto& groupings = j["groupings"] = json::array();
  for (const auto& g : p.groupings) groupings.push_back(grouping_json(g, p.models));
  if (p.groupings.size() > 1) j["groupings_best"] = best_json(best_grouping(p.groupings));
  auto& searches = j["searches"] = json::array();
  for (const auto& s : p.searches) searches.push_back(search_json(s, p.models));
  auto& procedures = j["procedures"] = json::array();
  for (const auto& c : p.procedures) procedures.push_back(procedure_change_json(c, p.models));
  j["trace"] = trace_json(p.quality, p.profiled_s > 0);
  // Names come from the program (thread names, symbols) and need not be UTF-8.
  return j.dump(2, ' ', false, json::error_handler_t::replace);
}

Predictions predictions_from_json(const std::string& text) {
  try {
    const json j = json::parse(text);
    Predictions p;
    p.program = j.at("program").get<std::string>();
    p.processors = j.at("processors").get<uint32_t>();
    p.observed_s = j.at("observed_s").get<double>();
    p.profiled_s = j.value("profiled_s", 0.0);
    p.recorded_s = j.at("recorded_s").get<double>();
    p.recorded_range = range_from(j.value("recorded_range", json::object()), p.recorded_s);
    // Stored before the check left the sampler its share: one replay was both.
    p.sampler_share = j.value("sampler_share", 0.0);
    p.base_s = j.value("base_s", p.recorded_s);
    if (j.contains("models")) {
      for (const auto& m : j["models"]) p.models.push_back(model_from(m));
    } else {  // stored before ranges: one model, the shipped one
      p.models.push_back({"fair", p.recorded_s});
    }
    if (j.contains("loaded") && j["loaded"].is_object()) p.loaded = loaded_from(j["loaded"]);
    if (j.contains("other_share") && j["other_share"].is_number()) {  // stored since 0.x
      p.other_share = j["other_share"].get<double>();
    }
    p.critical_path = critical_path_from(j.at("critical_path"));
    for (const auto& g : j.at("groupings")) p.groupings.push_back(grouping_from(g));
    for (const auto& s : j.at("searches")) p.searches.push_back(search_from(s));
    for (const auto& c : j.at("procedures")) p.procedures.push_back(procedure_change_from(c));
    p.quality = trace_from(j.at("trace"));
    return p;
  } catch (const json::exception& e) {
    throw PredictionError(std::string("stored prediction unreadable: ") + e.what());
  }
}

}  // namespace quartz::analysis
