#include "analysis/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analysis/cxx_names.h"
#include "analysis/diagnosis.h"
#include "analysis/diagnosis_report.h"
#include "analysis/prediction_json.h"
#include "analysis/prediction_report.h"
#include "analysis/row_json.h"
#include "analysis/text_format.h"

namespace quartz::analysis {
namespace {

using text::bar;
using text::format;
using text::kColumns;
using text::name_at;
using text::object_name_in;
using text::pad;
using text::percent;
using text::seconds;

void print_header(std::ostream& out, const ProfileView& v, const ReportOptions& options) {
  out << "Quartz profile";
  if (!options.run_label.empty()) out << " of " << options.run_label;
  out << "\n  program   ";
  for (size_t i = 0; i < v.arguments.size(); ++i) out << (i ? " " : "") << v.arguments[i];
  if (v.arguments.empty()) out << v.program;
  out << "\n  elapsed   " << seconds(v.elapsed_s) << " on " << v.processors << " processor"
      << (v.processors == 1 ? "" : "s");
  out << "; normalized processor time of the whole program "
      << seconds(v.program_totals.normalized_s) << "\n";
  if (const std::optional<Baseline>& b = v.quality.baseline) {
    out << "  baseline  " << seconds(b->elapsed_s) << " and " << seconds(b->cpu_s)
        << " of processor time unprofiled (--baseline): profiled, the run took "
        << format("x%.2f", v.elapsed_s / b->elapsed_s) << " as long and its threads "
        << format("x%.2f", b->profiled_cpu_s / b->cpu_s) << " the processor time\n";
  }
  if (options.parent_run || !options.child_runs.empty()) {
    out << "  runs      ";
    if (options.parent_run) out << "started by run " << *options.parent_run;
    if (options.parent_run && !options.child_runs.empty()) out << "; ";
    if (!options.child_runs.empty()) out << "started runs";
    for (size_t i = 0; i < options.child_runs.size(); ++i) {
      out << (i ? ", " : " ") << options.child_runs[i];
    }
    out << " (--follow-exec)\n";
  }
  if (!v.quality.final && v.quality.counts_elapsed_s) {
    out << "  WARNING   the run did not end normally (a fatal signal, an exec): its times "
           "cover it to its end, its counts of calls and acquisitions to "
        << seconds(*v.quality.counts_elapsed_s) << " (the last capture built whole)\n";
  } else if (!v.quality.final) {
    out << "  WARNING   the run did not end normally (a fatal signal, an exec): its figures "
           "stop where the capture was last written\n";
  }
}

void print_parallelism(std::ostream& out, const ProfileView& v) {
  out << "\nParallelism: elapsed time with i processors busy\n";
  double total = 0;
  for (double t : v.parallelism_s) total += t;
  for (size_t i = 0; i < v.parallelism_s.size(); ++i) {
    const double t = v.parallelism_s[i];
    out << "  " << pad(std::to_string(i), 3) << " " << bar(total > 0 ? t / total : 0, 40) << " "
        << pad(seconds(t), 10) << " " << percent(t, total) << "\n";
  }
}

void print_procedures(std::ostream& out, const ProfileView& v, size_t top) {
  out << "\nProcedures by normalized processor time (self and on its behalf)\n";
  if (v.folded_system_frames) {
    out << "  (system code, std:: and the C library, counts as the procedure that called it: "
           "--all-frames shows it)\n";
  }
  out << "  rank  normalized  %elapsed        self   processor       calls  procedure\n";
  size_t rank = 0;
  for (const ProcedureRow& p : v.procedures) {
    if (rank == top) break;
    const Totals& t = p.totals;
    out << "  " << pad(std::to_string(++rank), 4) << pad(seconds(t.normalized_s), 12)
        << pad(percent(t.normalized_s, v.elapsed_s), 10) << pad(seconds(t.normalized_self_s), 12)
        << pad(seconds(t.processor_s), 12) << pad(std::to_string(p.calls), 12) << "  "
        << name_at(p.name, p.location, kColumns - 66) << "\n";
  }
  if (v.procedures.size() > top) {
    out << "  ... " << v.procedures.size() - top << " more (--top N)\n";
  }
}

std::string histogram_inline(const Totals& t) {
  std::string s;
  for (size_t i = 0; i < t.histogram_s.size(); ++i) {
    if (t.histogram_s[i] <= 0) continue;
    s += (s.empty() ? "" : "  ") + std::to_string(i) + " busy: " + seconds(t.histogram_s[i]);
  }
  return s;
}

void print_block(std::ostream& out, const ProfileView& v, const std::string& name,
                 const Totals* totals, const std::vector<ChildRow>& children) {
  const double total = totals ? totals->normalized_s : v.program_totals.normalized_s;
  out << "\n  " << fit_name(name, kColumns - 32) << "  " << seconds(total) << " ("
      << percent(total, v.elapsed_s) << " of elapsed)\n";
  if (totals) out << "    by processors busy: " << histogram_inline(*totals) << "\n";
  for (const ChildRow& c : children) {
    if (c.normalized_s <= 0 && !c.is_self()) continue;
    const std::string kind = c.kind == capture::kProcedure ? "" : "  (" + kind_name(c.kind) + ")";
    const std::string& name = v.name_of(c);
    const std::string label =
        (c.kind == capture::kProcedure ? fit_name(name, kColumns - 36 - kind.size())
                                       : object_name_in(name, kColumns - 36 - kind.size())) +
        kind;
    out << "      " << pad(seconds(c.normalized_s), 10) << " " << percent(c.normalized_s, total);
    out << (c.calls ? pad(std::to_string(c.calls), 10) : std::string(10, ' ')) << "  " << label
        << "\n";
  }
}

void print_call_graph(std::ostream& out, const ProfileView& v, const ReportOptions& options) {
  out << "\nCall graph, top-down: each procedure's normalized time and how it divides among\n"
         "its children (normalized, % of the procedure, calls)\n";
  auto root = v.children.find(0);
  if (root != v.children.end()) print_block(out, v, "<program>", nullptr, root->second);
  size_t shown = 0;
  for (const ProcedureRow& p : v.procedures) {
    if (shown == options.top) break;
    auto it = v.children.find(p.address);
    if (it == v.children.end() || it->second.size() <= 1) continue;  // a leaf: nothing to divide
    print_block(out, v, p.name, &p.totals, it->second);
    ++shown;
  }
}

void print_locks(std::ostream& out, const ProfileView& v, size_t top) {
  if (v.locks.empty()) return;
  out << "\nSynchronization objects by normalized processor time (holding and on their behalf)\n";
  out << "     id  normalized      wait      hold  acquired  contended  mean queue  object\n";
  size_t n = 0;
  for (const LockRow& l : v.locks) {
    if (n++ == top) break;
    // The kind, where the name does not begin with it ("mutex@...").
    const std::string kind = kind_name(l.kind);
    const std::string suffix = l.name.rfind(kind, 0) == 0 ? "" : "  (" + kind + ")";
    out << "  " << pad("#" + std::to_string(l.id), 5) << pad(seconds(l.totals.normalized_s), 12)
        << pad(seconds(l.wait_s), 10) << pad(seconds(l.hold_s), 10)
        << pad(std::to_string(l.acquisitions), 10) << pad(std::to_string(l.contended), 11)
        << pad(format("%.2f", l.mean_queue), 12) << "  "
        << object_name_in(l.name, kColumns - 74 - suffix.size()) << suffix << "\n";
  }
}

void print_threads(std::ostream& out, const ProfileView& v, size_t top) {
  out << "\nThreads (thread-seconds in each state)\n";
  out << "  index  normalized        busy    spinning     blocked       ready  name\n";
  size_t n = 0;
  for (const ThreadRow& t : v.threads) {
    if (n++ == top) {
      out << "  ... " << v.threads.size() - top << " more\n";
      break;
    }
    out << "  " << pad(std::to_string(t.index), 5) << pad(seconds(t.totals.normalized_s), 12)
        << pad(seconds(t.busy_s), 12) << pad(seconds(t.spinning_s), 12)
        << pad(seconds(t.blocked_s), 12) << pad(seconds(t.ready_s), 12) << "  "
        << fit_name(t.label, kColumns - 69) << "\n";
  }
}

// What limits lost, first: every figure after it is short of that.
void print_limits(std::ostream& out, const ProfileView& v) {
  for (const LimitReached& l : v.quality.limits_reached) {
    out << "LIMIT REACHED: " << l.limit << ", " << l.lost << " " << l.lost_what << " ("
        << (l.flag.empty() ? "no flag raises it" : "raise it with 'quartz run " + l.flag + "'")
        << ")\n";
  }
  if (v.quality.openmp_unseen()) {
    out << "NOT SEEN: OpenMP's waits (" << v.quality.openmp_seen_through() << ")\n";
  }
  if (v.quality.itt_unseen()) {
    out << "NOT SEEN: ITT notifications, oneTBB's waits and tasks (" << v.quality.itt_seen_through()
        << ")\n";
  }
}

// How procedures were seen, and what the overhead budget stopped measuring.
void print_instrumentation(std::ostream& out, const Quality& q) {
  out << "Procedures seen through " << q.seen_through();
  if (q.patched_entries == 0) {
    out << "\n";
    return;
  }
  if (!q.procedure_patterns.empty())
    out << " (those --procedures '" << q.procedure_patterns << "' matches)";
  out << "; overhead budget "
      << (q.budget_percent ? std::to_string(q.budget_percent) + "%" : std::string("none"));
  auto print_trials = [&] {
    if (q.cost_trials == 0) return;
    out << "  " << q.cost_trials << (q.cost_trials == 1 ? " entry" : " entries")
        << " tried: turned off and on to measure what their calls cost the program\n";
  };
  if (q.unpatched.empty()) {
    out << ", no entry turned off\n";
    print_trials();
    return;
  }
  out << ", " << q.unpatched.size() << (q.unpatched.size() == 1 ? " entry" : " entries");
  if (q.window_reads == 0) {
    out << " turned off (calls counted until then; their time since is their callers'):\n";
  } else {
    out << " turned off (calls counted until then and in\n    " << q.entry_windows
        << " windows with the entries on; time since estimated from " << q.window_reads
        << " stack reads in them):\n";
  }
  // The most called first, as many as a reader takes in: theirs are the counts that stop
  // shortest of the calls made (a C++ program can have dozens; the JSON lists every one).
  std::vector<const UnpatchedProcedure*> listed;
  for (const UnpatchedProcedure& u : q.unpatched) listed.push_back(&u);
  std::stable_sort(listed.begin(), listed.end(),
                   [](const auto* a, const auto* b) { return a->calls > b->calls; });
  constexpr size_t kListedUnpatched = 10;
  for (size_t i = 0; i < listed.size() && i < kListedUnpatched; ++i) {
    const UnpatchedProcedure& u = *listed[i];
    out << "    " << fit_name(u.name, 64) << " after " << u.calls << " calls at "
        << seconds(u.at_s);
    if (u.call_ns > 0) out << " (a call cost the program " << format("%.0f", u.call_ns) << " ns)";
    out << "\n";
  }
  if (listed.size() > kListedUnpatched) {
    out << "    and " << listed.size() - kListedUnpatched
        << " more, less called (quartz report --json lists every one)\n";
  }
  print_trials();
}

void print_quality(std::ostream& out, const ProfileView& v) {
  const Quality& q = v.quality;
  out << "\nSampling: " << q.samples << " samples every " << seconds(q.period_s);
  if (q.period_longest_s > q.period_s) {
    out << " (lengthened up to " << seconds(q.period_longest_s) << " for many threads, "
        << seconds(q.period_kept_s(v.elapsed_s)) << " on average)";
  }
  if (q.snapshots_lost || q.snapshots_late) {
    out << ", of " << q.snapshots_due << " due " << q.snapshots_lost << " lost and "
        << q.snapshots_late << " late";
  }
  out << ", " << q.thread_samples << " thread samples, " << format("%.3f%%", 100 * q.torn_rate)
      << " torn; CPU shares " << (q.cpu_measurement == "schedstat" ? "measured" : "modelled")
      << "; sampler " << (q.reserved_core ? "on a reserved core" : "sharing the processors");
  if (q.sampler_priority == capture::run_keys::kPriorityRealtime) {
    out << " at real-time priority";
  } else if (q.sampler_priority == capture::run_keys::kPriorityRefused) {
    out << " at normal priority (real time not permitted)";
  }
  out << ", " << seconds(q.sampler_cpu_s) << " CPU (" << percent(q.sampler_cpu_s, v.elapsed_s)
      << " of elapsed); hook overhead removed " << seconds(q.dilation_removed_s) << " ("
      << format("%.1f", q.hook_pair_ns) << " ns per call)";
  if (q.other_cpu_s) {
    out << "; other processes took " << seconds(*q.other_cpu_s) << " of its processors ("
        << percent(*q.other_cpu_s, v.elapsed_s * v.processors) << " of their time)";
  }
  out << "\n";
  print_instrumentation(out, q);
  if (!q.openmp.empty()) out << "OpenMP seen through " << q.openmp_seen_through() << "\n";
  if (!q.itt.empty()) out << "ITT notifications seen through " << q.itt_seen_through() << "\n";
  if (q.traced) {
    out << "Trace: " << q.trace_events << " events, " << q.trace_bytes << " bytes";
    if (q.trace_dropped) out << ", " << q.trace_dropped << " DROPPED";
    out << "; ask 'quartz predict' what-ifs\n";
  }
}

}  // namespace

void print_text_report(std::ostream& wrapped, const ProfileView& view,
                       const ReportOptions& options) {
  std::ostringstream out;  // every line within kColumns at the end
  print_header(out, view, options);
  print_limits(out, view);
  out << "\n";
  print_findings_summary(out, diagnose(view), 3);
  print_parallelism(out, view);
  print_procedures(out, view, options.top);
  print_call_graph(out, view, options);
  print_locks(out, view, options.top);
  print_threads(out, view, options.top);
  print_quality(out, view);
  if (!options.what_ifs.empty()) {
    out << "\nWhat-ifs stored with this run (quartz predict)\n";
    for (const profile::StoredPrediction& w : options.what_ifs)
      print_what_if(out, w.made, w.question, predictions_from_json(w.json));
  }
  wrapped << text::wrap_lines(out.str());
}

namespace {

// Names come from the program (its path, thread names) and need not be UTF-8.
constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

// Appends `rows` to the JSON object being written as the array `key`, one row a line
// (`json_of` makes each): a big run's millions of rows are never a tree in memory at once.
template <typename Rows, typename JsonOf>
void stream_array(std::ostream& out, const char* key, const Rows& rows, JsonOf json_of) {
  out << ",\n  \"" << key << "\": [";
  bool first = true;
  for (const auto& row : rows) {
    out << (first ? "\n    " : ",\n    ") << json_of(row).dump(-1, ' ', false, kReplace);
    first = false;
  }
  out << (first ? "]" : "\n  ]");
}

}  // namespace

void print_json_report(std::ostream& out, const ProfileView& v, const ReportOptions& options) {
  nlohmann::json j;
  j["program"] = v.program;
  j["arguments"] = v.arguments;
  j["elapsed_s"] = v.elapsed_s;
  j["processors"] = v.processors;
  j["parallelism_s"] = v.parallelism_s;
  j["program_totals"] = totals_json(v.program_totals);
  j["final"] = v.quality.final;
  if (v.quality.counts_elapsed_s) j["counts_elapsed_s"] = *v.quality.counts_elapsed_s;
  j["all_frames"] = v.all_frames;  // false: system frames folded into the program's callers
  j["findings"] = findings_json(diagnose(v));
  if (options.parent_run) j["parent_run"] = *options.parent_run;
  if (!options.child_runs.empty()) j["child_runs"] = options.child_runs;
  const Quality& q = v.quality;
  j["sampling"] = {
      {"samples", q.samples},
      {"thread_samples", q.thread_samples},
      {"period_s", q.period_s},
      {"period_kept_s", q.period_kept_s(v.elapsed_s)},
      {"period_longest_s", q.period_longest_s},
      {"snapshots_due", q.snapshots_due},
      {"snapshots_late", q.snapshots_late},
      {"snapshots_lost", q.snapshots_lost},
      {"sampler_priority", q.sampler_priority},
      {"walk_s", q.walk_s},
      {"torn_rate", q.torn_rate},
      {"dilation_removed_s", q.dilation_removed_s},
      {"hook_pair_ns", q.hook_pair_ns},
      {"patched_entries", q.patched_entries},
      {"procedure_patterns", q.procedure_patterns},
      {"budget_percent", q.budget_percent},
      {"cost_trials", q.cost_trials},
      {"entry_windows", q.entry_windows},
      {"window_reads", q.window_reads},
      {"sampler_cpu_s", q.sampler_cpu_s},
      {"other_cpu_s", q.other_cpu_s ? nlohmann::json(*q.other_cpu_s) : nlohmann::json(nullptr)},
      {"reserved_core", q.reserved_core},
      {"cpu_measurement", q.cpu_measurement},
      {"openmp", q.openmp.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.openmp)},
      {"itt", q.itt.empty() ? nlohmann::json(nullptr) : nlohmann::json(q.itt)},
      {"stack_overflows", q.stack_overflows},
      {"unmatched_exits", q.unmatched_exits},
      {"dropped", q.dropped}};
  j["baseline"] = nullptr;
  if (const std::optional<Baseline>& b = q.baseline) {
    j["baseline"] = {{"elapsed_s", b->elapsed_s},
                     {"cpu_s", b->cpu_s},
                     {"profiled_elapsed_s", v.elapsed_s},
                     {"profiled_cpu_s", b->profiled_cpu_s}};
  }
  auto& unpatched = j["sampling"]["unpatched"] = nlohmann::json::array();
  for (const UnpatchedProcedure& u : q.unpatched) unpatched.push_back(unpatched_json(u));
  auto& limits = j["sampling"]["limits_reached"] = nlohmann::json::array();
  for (const LimitReached& l : q.limits_reached) limits.push_back(limit_json(l));
  if (q.traced) {
    j["trace"] = {
        {"events", q.trace_events}, {"dropped", q.trace_dropped}, {"bytes", q.trace_bytes}};
  }
  auto& what_ifs = j["what_ifs"] = nlohmann::json::array();
  for (const profile::StoredPrediction& w : options.what_ifs) {
    what_ifs.push_back({{"made", w.made},
                        {"question", w.question},
                        {"predictions", nlohmann::json::parse(w.json, nullptr, false)}});
  }
  // The locks and threads (100,000 mutexes took 5.6 s and 886 MB as a tree), the procedures
  // with their children, and the contexts, one per calling context (millions in a big
  // run), are streamed one per line after the rest: the memory used is that of one, not of
  // a tree of them all.
  std::string head = j.dump(2, ' ', false, kReplace);
  head.resize(head.size() - 2);  // the closing "\n}"
  out << head;
  stream_array(out, "locks", v.locks, lock_json);
  stream_array(out, "threads", v.threads, thread_json);
  stream_array(out, "procedures", v.procedures,
               [&](const ProcedureRow& p) { return procedure_json(p, v); });
  stream_array(out, "contexts", v.contexts,
               [&](const ContextRow& c) { return context_json(c, v); });
  out << "\n}\n";
}

}  // namespace quartz::analysis
