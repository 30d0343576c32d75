#include "analysis/prediction_report.h"

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

// "600.1-640.0 ms    6.5%   612.34 ms   -0.0%  WHAT": the range first, its width, then the
// most likely model's figure and its change against the recording replayed alone. A range
// too wide to decide says under a line of its own which models give its ends and why they
// differ.
std::string answer_line(const Predictions& p, double likely_s, const PredictionRange& r,
                        const std::string& what) {
  std::string line = "  " + pad(text::seconds_range(r.low_s, r.high_s), 17) + "  " +
                     pad(text::format("%.1f%%", 100 * relative_width(likely_s, r)), 6) + "  " +
                     pad(seconds(likely_s), 10) + "  " + pad(change(likely_s, p.base_s), 7) + "  " +
                     what;
  const std::string why = wide_reason(likely_s, r, p.models);
  if (!why.empty()) line += "\n      wide: " + why;
  return line;
}

constexpr const char* kAnswerColumns =
    "  range (models)            width  most likely  vs rec.  ";  // then what the line answers

// The option first (short), the threads' names after it (long, wrapped last).
std::string placement(const GroupingPrediction& g) {
  return "--placement \"" + g.spec + "\"  " + g.names;
}

// A grouping's answer, and under it the task pools it splits.
void print_grouping(std::ostream& out, const Predictions& p, const GroupingPrediction& g) {
  out << answer_line(p, g.predicted_s, g.range, placement(g)) << "\n";
  if (!g.split_pools.empty()) out << "      pool: " << pool_note(g) << "\n";
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
      << models_counted(p.models) << " scheduler model" << (p.models.size() == 1 ? "" : "s") << " ("
      << (inside ? "the recorded time inside" : "the recorded time outside") << "), "
      << seconds(p.recorded_s) << " under the most likely (" << change(p.recorded_s, p.observed_s)
      << ": the model's error on what it saw)\n";
  if (p.sampler_share > 0) {
    const double others = quiet_other_share(p);
    out << "  alone     " << seconds(p.base_s) << " under the most likely, without the sampler's "
        << text::format("%.1f%%", 100 * p.sampler_share)
        << (others > 0 ? " and other processes' " + text::format("%.1f%%", 100 * others) : "")
        << " of each processor: what the what-ifs are compared with\n";
  }
  for (const TrustWarning& w : trust_warnings(p)) out << "  CAUTION   " << w.text << "\n";
  if (p.models.size() > 1) {
    out << "  models    ";
    for (size_t m = 0; m < p.models.size(); ++m) {
      const ModelCheck& c = p.models[m];
      out << (m ? ", " : "") << c.name << " " << seconds(c.recorded_s) << " ("
          << change(c.recorded_s, p.observed_s) << (m == 0 ? ", most likely" : "")
          << (c.contradicted ? ", ruled out by the recording: in no range" : "")
          << (c.recorded_only && !c.contradicted
                  ? ", the recorded lock order: in the recorded configuration's range only"
                  : "")
          << ")";
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
    for (const auto& g : p.groupings) print_grouping(out, p, g);
    print_verdict(out, p.groupings);
  }
  for (const auto& s : p.searches) {
    out << "\nBest groupings onto " << s.cores << " processor" << (s.cores == 1 ? "" : "s") << " ("
        << (s.exhaustive ? "all " : "local search, ") << s.candidates << " tried"
        << (s.exhaustive ? "" : " in " + std::to_string(s.rounds) + " rounds")
        << " under the most likely model; ranges of these)\n"
        << kAnswerColumns << "grouping\n";
    for (const auto& g : s.best) print_grouping(out, p, g);
    // On one processor, every thread sharing it is the one grouping listed above.
    if (s.cores > 1) {
      out << answer_line(p, s.shared_s, s.shared_range,
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
      out << answer_line(p, c.predicted_s, c.range, what) << "\n";
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
    out << "  " << answer_line(p, s, r, what) << "\n";
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

}  // namespace quartz::analysis
