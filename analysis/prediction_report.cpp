#include "analysis/prediction_report.h"

#include <nlohmann/json.hpp>

#include "analysis/text_format.h"
#include "analysis/trust_warnings.h"

namespace quartz::analysis {
namespace {

using text::change;
using text::pad;
using text::seconds;

void print_list(std::ostream& out, const char* title, const std::vector<NamedTime>& list,
                double whole) {
  if (list.empty()) return;
  out << "  " << pad(title, 11, false);
  for (size_t i = 0; i < list.size() && i < 5; ++i) {
    out << (i ? ", " : "") << list[i].name << " " << seconds(list[i].seconds) << " ("
        << text::format("%.0f%%", 100 * share(list[i].seconds, whole).value_or(0)) << ")";
  }
  out << "\n";
}

nlohmann::json named(const std::vector<NamedTime>& list) {
  auto a = nlohmann::json::array();
  for (const auto& n : list) a.push_back({{"name", n.name}, {"s", n.seconds}});
  return a;
}

// Which grouping is best, or which are not told apart (prediction.h best_grouping), by
// index into the list it was made of.
nlohmann::json best_json(const BestGrouping& b) {
  return {{"best", b.best}, {"separated", b.tied.empty()}, {"tied", b.tied}};
}

std::vector<NamedTime> named_from(const nlohmann::json& a) {
  std::vector<NamedTime> out;
  for (const auto& n : a) out.push_back({n.at("name").get<std::string>(), n.at("s").get<double>()});
  return out;
}

// A range's fields, added to an answer's object: "low_s", "high_s", "width" (of the most
// likely figure `likely_s`), "by_model_s".
void add_range(nlohmann::json& j, double likely_s, const PredictionRange& r) {
  j["low_s"] = r.low_s;
  j["high_s"] = r.high_s;
  j["width"] = relative_width(likely_s, r);
  j["by_model_s"] = r.by_model_s;
}

// Stored before ranges: the single figure, as a range of one model.
PredictionRange range_from(const nlohmann::json& j, double likely_s) {
  PredictionRange r;
  r.low_s = j.value("low_s", likely_s);
  r.high_s = j.value("high_s", likely_s);
  r.by_model_s = j.value("by_model_s", std::vector<double>{likely_s});
  return r;
}

nlohmann::json grouping_json(const GroupingPrediction& g) {
  nlohmann::json j{{"spec", g.spec}, {"names", g.names}, {"predicted_s", g.predicted_s}};
  add_range(j, g.predicted_s, g.range);
  return j;
}

GroupingPrediction grouping_from(const nlohmann::json& j) {
  const double likely_s = j.at("predicted_s").get<double>();
  return {j.at("spec").get<std::string>(), j.at("names").get<std::string>(), likely_s,
          range_from(j, likely_s)};
}

}  // namespace

namespace {

// "600.1-640.0 ms    6.5%   612.34 ms   -0.0%  WHAT": the range first, its width, then the
// most likely model's figure and its change against the replay of the recording.
std::string answer_line(double likely_s, const PredictionRange& r, double recorded_s,
                        const std::string& what) {
  return "  " + pad(text::seconds_range(r.low_s, r.high_s), 17) + "  " +
         pad(text::format("%.1f%%", 100 * relative_width(likely_s, r)), 6) + "  " +
         pad(seconds(likely_s), 10) + "  " + pad(change(likely_s, recorded_s), 7) + "  " + what;
}

constexpr const char* kAnswerColumns =
    "  range (all models)        width  most likely  vs rec.  ";  // then what the line answers

// The option first (short), the threads' names after it (long, wrapped last).
std::string placement(const GroupingPrediction& g) {
  return "--placement \"" + g.spec + "\"  " + g.names;
}

// The verdict on groupings compared: the best only where its range separates it.
void print_verdict(std::ostream& out, const std::vector<GroupingPrediction>& groupings) {
  if (groupings.size() < 2) return;
  const BestGrouping b = best_grouping(groupings);
  const GroupingPrediction& best = groupings[b.best];
  if (b.tied.empty()) {
    out << "  best: " << best.names << " (its range lies below every other's)\n";
    return;
  }
  out << "  no best: " << best.names << " is fastest under the most likely model, but "
      << b.tied.size() << " other" << (b.tied.size() == 1 ? "'s" : "s'") << " range"
      << (b.tied.size() == 1 ? " reaches" : "s reach") << " into its own ("
      << groupings[b.tied.front()].names << (b.tied.size() > 1 ? ", ..." : "")
      << "): the ranges do not tell them apart; measure them with --placement\n";
}

}  // namespace

void print_predictions(std::ostream& out, const Predictions& p, const std::string& run_label) {
  out << "Quartz predictions";
  if (!run_label.empty()) out << " for " << run_label;
  const PredictionRange& r = p.recorded_range;
  const bool inside = p.observed_s >= r.low_s && p.observed_s <= r.high_s;
  out << "\n  recorded  " << seconds(p.observed_s) << " on " << p.processors << " processor"
      << (p.processors == 1 ? "" : "s");
  if (p.profiled_s > 0) {
    out << " unprofiled (--baseline; " << seconds(p.profiled_s) << " profiled)";
  }
  out << "; replayed as recorded " << text::seconds_range(r.low_s, r.high_s) << " under "
      << p.models.size() << " scheduler model" << (p.models.size() == 1 ? "" : "s") << " ("
      << (inside ? "the recorded time inside" : "the recorded time outside") << "), "
      << seconds(p.recorded_s) << " under the most likely (" << change(p.recorded_s, p.observed_s)
      << ": the model's error on what it saw)\n";
  for (const TrustWarning& w : trust_warnings(p)) out << "  CAUTION   " << w.text << "\n";
  if (p.models.size() > 1) {
    out << "  models    ";
    for (size_t m = 0; m < p.models.size(); ++m) {
      const ModelCheck& c = p.models[m];
      out << (m ? ", " : "") << c.name << " " << seconds(c.recorded_s) << " ("
          << change(c.recorded_s, p.observed_s) << (m == 0 ? ", most likely" : "") << ")";
    }
    out << "\n";
  }

  const CriticalPath& cp = p.critical_path;
  out << "\nCritical path (every thread on a processor of its own, most likely model): "
      << seconds(cp.length_s) << ", " << text::format("%.0f%%", 100 * cp.share)
      << " of the recorded elapsed time\n";
  print_list(out, "threads", cp.threads, cp.length_s);
  print_list(out, "procedures", cp.procedures, cp.length_s);
  print_list(out, "locks held", cp.locks, cp.length_s);
  if (cp.delay_s > 0) out << "  off the processor (I/O, sleep): " << seconds(cp.delay_s) << "\n";

  if (!p.groupings.empty()) {
    out << "\nGroupings (each group shares one processor)\n" << kAnswerColumns << "grouping\n";
    for (const auto& g : p.groupings) {
      out << answer_line(g.predicted_s, g.range, p.recorded_s, placement(g)) << "\n";
    }
    print_verdict(out, p.groupings);
  }
  for (const auto& s : p.searches) {
    out << "\nBest groupings onto " << s.cores << " processor" << (s.cores == 1 ? "" : "s") << " ("
        << (s.exhaustive ? "all " : "local search, ") << s.candidates << " tried"
        << (s.exhaustive ? "" : " in " + std::to_string(s.rounds) + " rounds")
        << " under the most likely model; ranges of these)\n"
        << kAnswerColumns << "grouping\n";
    for (const auto& g : s.best) {
      out << answer_line(g.predicted_s, g.range, p.recorded_s, placement(g)) << "\n";
    }
    // On one processor, every thread sharing it is the one grouping listed above.
    if (s.cores > 1) {
      out << answer_line(s.shared_s, s.shared_range, p.recorded_s,
                         "(all threads sharing the " + std::to_string(s.cores) + " processors)")
          << "\n";
    }
    print_verdict(out, s.best);
  }
  if (!p.procedures.empty()) {
    out << "\nProcedure changes\n" << kAnswerColumns << "change\n";
    for (const auto& c : p.procedures) {
      std::string what = c.procedure + " " +
                         (c.change == "speedup" ? text::format("%.0f%% faster", c.percent)
                          : c.change == "zero"  ? "taking no time"
                                                : "moved to the thread it wakes");
      if (c.unreceived_s > 0) what += " (" + seconds(c.unreceived_s) + " of it woke nobody)";
      out << answer_line(c.predicted_s, c.range, p.recorded_s, what) << "\n";
    }
  }
  const TraceQuality& q = p.quality;
  out << "\nTrace: " << q.events << " events, " << q.samples << " samples, " << q.bytes
      << " bytes; " << q.unpaired_waits << " waits replayed as delays, " << q.forced_waits
      << " forced; " << seconds(q.compensated_s) << " of overhead removed ("
      << (p.profiled_s > 0
              ? "processor time " + text::format("x%.3f", q.cpu_scale) +
                    ", to what the program used in its unprofiled run: --baseline"
              : std::string("the calibrated cost of the calls and trace events; the program "
                            "alone may be faster: quartz run --baseline measures it"))
      << ")\n"
      << "  wake-up of an idle processor " << seconds(q.wake_latency_s) << " (from " << q.wake_ups
      << " wake-ups with a known waker)\n"
      << "  predicted in " << seconds(q.seconds) << " ("
      << text::format("%.2f", q.records_per_second / 1e6) << " M records/s), at most "
      << q.peak_window << " steps held\n";
}

void print_what_if(std::ostream& out, const std::string& made, const std::string& question,
                   const Predictions& p) {
  out << "  " << made << "  " << question << "\n"
      << "    replayed as recorded "
      << text::seconds_range(p.recorded_range.low_s, p.recorded_range.high_s) << ", "
      << seconds(p.recorded_s) << " most likely (recorded " << seconds(p.observed_s)
      << "); critical path " << seconds(p.critical_path.length_s) << "\n";
  for (const TrustWarning& w : trust_warnings(p)) out << "    caution: " << w.text << "\n";
  auto line = [&](const std::string& what, double s, const PredictionRange& r) {
    out << "  " << answer_line(s, r, p.recorded_s, what) << "\n";
  };
  for (const auto& g : p.groupings) line(g.names, g.predicted_s, g.range);
  for (const auto& s : p.searches) {
    if (!s.best.empty()) {
      const BestGrouping b = best_grouping(s.best);
      line((b.tied.empty() ? "best on " : "fastest (not told apart) on ") +
               std::to_string(s.cores) + ": " + s.best[b.best].names,
           s.best[b.best].predicted_s, s.best[b.best].range);
    }
  }
  for (const auto& c : p.procedures) {
    line(c.change + " " + c.procedure +
             (c.change == "speedup" ? text::format(" %.0f%%", c.percent) : ""),
         c.predicted_s, c.range);
  }
}

std::string predictions_json(const Predictions& p) {
  nlohmann::json j;
  j["program"] = p.program;
  j["processors"] = p.processors;
  j["observed_s"] = p.observed_s;
  if (p.profiled_s > 0) j["profiled_s"] = p.profiled_s;
  j["recorded_s"] = p.recorded_s;
  add_range(j["recorded_range"], p.recorded_s, p.recorded_range);
  auto& models = j["models"] = nlohmann::json::array();
  for (const ModelCheck& m : p.models) {
    models.push_back({{"name", m.name}, {"recorded_s", m.recorded_s}});
  }
  j["other_share"] = p.other_share ? nlohmann::json(*p.other_share) : nlohmann::json(nullptr);
  j["loaded"] = nullptr;
  if (p.loaded) {
    j["loaded"] = {{"processors", p.loaded->processors}, {"predicted_s", p.loaded->predicted_s}};
    add_range(j["loaded"], p.loaded->predicted_s, p.loaded->range);
  }
  auto& trust = j["trust"] = nlohmann::json::array();
  for (const TrustWarning& w : trust_warnings(p)) {
    trust.push_back({{"reason", w.reason}, {"text", w.text}});
  }
  const CriticalPath& cp = p.critical_path;
  j["critical_path"] = {{"length_s", cp.length_s},
                        {"share", cp.share},
                        {"cpu_s", cp.cpu_s},
                        {"delay_s", cp.delay_s},
                        {"threads", named(cp.threads)},
                        {"procedures", named(cp.procedures)},
                        {"locks", named(cp.locks)}};
  auto& groupings = j["groupings"] = nlohmann::json::array();
  for (const auto& g : p.groupings) groupings.push_back(grouping_json(g));
  if (p.groupings.size() > 1) j["groupings_best"] = best_json(best_grouping(p.groupings));
  auto& searches = j["searches"] = nlohmann::json::array();
  for (const auto& s : p.searches) {
    auto best = nlohmann::json::array();
    for (const auto& g : s.best) best.push_back(grouping_json(g));
    nlohmann::json search{{"cores", s.cores},           {"exhaustive", s.exhaustive},
                          {"candidates", s.candidates}, {"rounds", s.rounds},
                          {"shared_s", s.shared_s},     {"best", best}};
    add_range(search["shared_range"], s.shared_s, s.shared_range);
    if (!s.best.empty()) search["verdict"] = best_json(best_grouping(s.best));
    searches.push_back(std::move(search));
  }
  auto& procedures = j["procedures"] = nlohmann::json::array();
  for (const auto& c : p.procedures) {
    nlohmann::json change{{"change", c.change},
                          {"procedure", c.procedure},
                          {"percent", c.percent},
                          {"predicted_s", c.predicted_s},
                          {"unreceived_s", c.unreceived_s},
                          {"turned_off_s", c.turned_off_s ? nlohmann::json(*c.turned_off_s)
                                                          : nlohmann::json(nullptr)}};
    add_range(change, c.predicted_s, c.range);
    procedures.push_back(std::move(change));
  }
  const TraceQuality& q = p.quality;
  j["trace"] = {{"events", q.events},
                {"records", q.records},
                {"samples", q.samples},
                {"dropped", q.dropped},
                {"bytes", q.bytes},
                {"complete", q.complete},
                {"unpaired_waits", q.unpaired_waits},
                {"forced_waits", q.forced_waits},
                {"compensated_s", q.compensated_s},
                {"correction", p.profiled_s > 0 ? "baseline" : "calibrated"},
                {"cpu_scale", q.cpu_scale},
                {"wake_latency_s", q.wake_latency_s},
                {"wake_ups", q.wake_ups},
                {"peak_window", q.peak_window},
                {"seconds", q.seconds},
                {"records_per_second", q.records_per_second}};
  // Names come from the program (thread names, symbols) and need not be UTF-8.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

Predictions predictions_from_json(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    Predictions p;
    p.program = j.at("program").get<std::string>();
    p.processors = j.at("processors").get<uint32_t>();
    p.observed_s = j.at("observed_s").get<double>();
    p.profiled_s = j.value("profiled_s", 0.0);
    p.recorded_s = j.at("recorded_s").get<double>();
    p.recorded_range =
        range_from(j.value("recorded_range", nlohmann::json::object()), p.recorded_s);
    if (j.contains("models")) {
      for (const auto& m : j["models"]) {
        p.models.push_back({m.at("name").get<std::string>(), m.at("recorded_s").get<double>()});
      }
    } else {  // stored before ranges: one model, the shipped one
      p.models.push_back({"fair", p.recorded_s});
    }
    if (j.contains("loaded") && j["loaded"].is_object()) {  // stored since issue 15 item 2
      const nlohmann::json& l = j["loaded"];
      const double likely_s = l.at("predicted_s").get<double>();
      p.loaded = LoadedReplay{l.at("processors").get<double>(), likely_s, range_from(l, likely_s)};
    }
    if (j.contains("other_share") && j["other_share"].is_number()) {  // stored since 0.x
      p.other_share = j["other_share"].get<double>();
    }
    const auto& cp = j.at("critical_path");
    p.critical_path = {cp.at("length_s").get<double>(), cp.at("share").get<double>(),
                       cp.at("cpu_s").get<double>(),    cp.at("delay_s").get<double>(),
                       named_from(cp.at("threads")),    named_from(cp.at("procedures")),
                       named_from(cp.at("locks"))};
    for (const auto& g : j.at("groupings")) p.groupings.push_back(grouping_from(g));
    for (const auto& s : j.at("searches")) {
      GroupingSearch search;
      search.cores = s.at("cores").get<uint32_t>();
      search.exhaustive = s.at("exhaustive").get<bool>();
      search.candidates = s.at("candidates").get<uint64_t>();
      search.rounds = s.at("rounds").get<uint32_t>();
      search.shared_s = s.at("shared_s").get<double>();
      search.shared_range =
          range_from(s.value("shared_range", nlohmann::json::object()), search.shared_s);
      for (const auto& g : s.at("best")) search.best.push_back(grouping_from(g));
      p.searches.push_back(std::move(search));
    }
    for (const auto& c : j.at("procedures")) {
      const double likely_s = c.at("predicted_s").get<double>();
      p.procedures.push_back({c.at("change").get<std::string>(),
                              c.at("procedure").get<std::string>(), c.at("percent").get<double>(),
                              likely_s, c.at("unreceived_s").get<double>(), range_from(c, likely_s),
                              std::nullopt});
      if (const auto off = c.find("turned_off_s"); off != c.end() && off->is_number()) {
        p.procedures.back().turned_off_s = off->get<double>();
      }
    }
    const auto& q = j.at("trace");
    p.quality.events = q.at("events").get<uint64_t>();
    p.quality.records = q.at("records").get<uint64_t>();
    p.quality.samples = q.at("samples").get<uint64_t>();
    p.quality.dropped = q.at("dropped").get<uint64_t>();
    p.quality.bytes = q.at("bytes").get<uint64_t>();
    p.quality.complete = q.at("complete").get<bool>();
    p.quality.unpaired_waits = q.at("unpaired_waits").get<uint64_t>();
    p.quality.forced_waits = q.at("forced_waits").get<uint64_t>();
    p.quality.compensated_s = q.at("compensated_s").get<double>();
    p.quality.cpu_scale = q.value("cpu_scale", 1.0);
    p.quality.wake_latency_s = q.value("wake_latency_s", 0.0);  // stored before it was measured
    p.quality.wake_ups = q.value("wake_ups", uint64_t{0});
    p.quality.peak_window = q.at("peak_window").get<uint64_t>();
    p.quality.seconds = q.at("seconds").get<double>();
    p.quality.records_per_second = q.at("records_per_second").get<double>();
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw PredictionError(std::string("stored prediction unreadable: ") + e.what());
  }
}

}  // namespace quartz::analysis
