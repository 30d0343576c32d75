// What the report shows, derived from a run: `quartz report` (text and JSON), the exports
// and `quartz-view` all print a ProfileView. Each figure is computed in one file:
//   table_rows.h      the ranked tables: procedures, synchronization objects, threads
//   context_tree.h    the calling-context tree's rows
//   call_graph.h      each procedure's time divided among its children
//   run_quality.h     sampling, instrumentation, limits reached, baseline, starvation
//   display_names.h   the names of procedures, threads and objects
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/call_graph.h"
#include "analysis/context_tree.h"
#include "analysis/display_names.h"
#include "analysis/run_quality.h"
#include "analysis/table_rows.h"
#include "profile/run.h"

namespace quartz::analysis {

struct ProfileView {
  std::string program;
  bool all_frames = false;  // false: system frames folded into their callers (system_frames.h)
  bool folded_system_frames = false;  // some were
  std::vector<std::string> arguments;
  uint32_t processors = 1;
  double elapsed_s = 0;
  std::vector<double> parallelism_s;     // elapsed time with i processors busy, 0..P
  Totals program_totals;                 // the root: everything (all of it "self")
  std::vector<ProcedureRow> procedures;  // by normalized time, descending
  std::vector<LockRow> locks;            // by normalized time, descending
  std::vector<ThreadRow> threads;        // by index
  std::vector<ContextRow> contexts;      // the calling-context tree, parents first
  // The names of the contexts' and children's procedures and objects, each once
  // (name_index); the contexts' normalized time by processors busy, 0..P, with the
  // subtree's and at the context itself: 2(P+1) values a context, in the order of
  // `contexts` (histogram_of, histogram_self_of).
  std::vector<std::string> names;
  std::vector<double> context_histograms;
  Starvation starvation;
  LongestWait longest_wait;
  // The call graph; empty in a view made without it (ViewOptions::children): call_graph().
  CallGraph children;
  Quality quality;

  // "% elapsed" of a record: its normalized time as a share of the elapsed time.
  std::optional<double> share_of_elapsed(double normalized_s) const;

  const std::string& name_of(const ContextRow& c) const { return names[c.name_index]; }
  const std::string& name_of(const ChildRow& c) const;
  std::span<const double> histogram_of(const ContextRow& c) const {
    return {context_histograms.data() + size_t{c.id} * 2 * bins(), bins()};
  }
  std::span<const double> histogram_self_of(const ContextRow& c) const {
    return {context_histograms.data() + (size_t{c.id} * 2 + 1) * bins(), bins()};
  }
  // Appends a context built by hand (tests, a view without a run): its id is its index.
  void add_context(ContextRow c, const std::string& name, const std::vector<double>& histogram,
                   const std::vector<double>& histogram_self);
  size_t bins() const { return size_t{processors} + 1; }
};

// A part's share of a whole (of the elapsed time, of the critical path); none when the
// whole is not positive.
std::optional<double> share(double part, double whole);

// What analyze() shows.
struct ViewOptions {
  bool all_frames = false;  // every frame, system code's included (`--all-frames`)
  // The calling-context tree's rows, and the children's shares (the call graph); without
  // them only the ranked tables and the findings (what import stores), which a run of
  // millions of contexts builds in a fraction of the memory. The text report shows the
  // call graph, not the rows: at 8.1 M contexts they are 0.97 GB.
  bool contexts = true;
  bool children = true;
  // The call graph's parents: the root and this many procedures that have children, the
  // first by rank (the text report shows its --top of them).
  size_t children_of = std::numeric_limits<size_t>::max();
};

ProfileView analyze(const profile::Run& run, const ViewOptions& options = {});
// The same for a caller done with the run's calling contexts (reports, exports, the
// viewer): the view takes them rather than copying, their time by processors busy becoming
// its histograms in place, and frees them once its rows are made (224 bytes a context at
// the peak, where a copy took 312). Leaves `run` as the view shows it (system frames
// folded unless options.all_frames) and without contexts.
ProfileView analyze_taking_contexts(profile::Run& run, const ViewOptions& options = {});

}  // namespace quartz::analysis
