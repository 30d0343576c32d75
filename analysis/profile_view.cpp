#include "analysis/profile_view.h"

#include <algorithm>
#include <sstream>

#include "analysis/system_frames.h"

namespace quartz::analysis {

using namespace quartz::profile;

std::optional<double> share(double part, double whole) {
  if (!(whole > 0)) return std::nullopt;
  return part / whole;
}

void ProfileView::add_context(ContextRow c, const std::string& name,
                              const std::vector<double>& histogram,
                              const std::vector<double>& histogram_self) {
  c.id = static_cast<uint32_t>(contexts.size());
  const auto known = std::find(names.begin(), names.end(), name);
  c.name_index = static_cast<uint32_t>(known - names.begin());
  if (known == names.end()) names.push_back(name);
  contexts.push_back(c);
  for (const std::vector<double>* values : {&histogram, &histogram_self}) {
    const size_t at = context_histograms.size();
    context_histograms.resize(at + bins(), 0);
    std::copy_n(values->begin(), std::min(bins(), values->size()), context_histograms.begin() + at);
  }
}

const std::string& ProfileView::name_of(const ChildRow& c) const {
  static const std::string kSelfName = "self";
  return c.is_self() ? kSelfName : names[c.name_index];
}

std::optional<double> ProfileView::share_of_elapsed(double normalized_s) const {
  return share(normalized_s, elapsed_s);
}

namespace {

// `owned`: `run` itself when its contexts are the view's to take (analyze_taking_contexts,
// or a folded copy), else null.
ProfileView view_of(const Run& run, const ViewOptions& options, bool folded, Run* owned) {
  ProfileView view;
  view.all_frames = options.all_frames;
  view.folded_system_frames = folded;
  view.program = run.text(capture::run_keys::kProgram);
  std::stringstream split(run.text(capture::run_keys::kArguments));
  for (std::string word; std::getline(split, word, '\x1f');) view.arguments.push_back(word);
  view.processors = run.processors;
  view.elapsed_s = run.elapsed_s();
  view.program_totals = totals_of(run.program, run);
  view.parallelism_s = view.program_totals.histogram_s;
  view.procedures = procedure_rows(run);
  sum_context_findings(run, view.procedures, view.longest_wait);
  if (options.contexts) {
    std::vector<double> bins;
    if (owned) {
      bins = std::move(owned->context_bins);
    } else {
      bins = run.context_bins;
    }
    add_context_rows(run, std::move(bins), view);
    // The call graph from the rows, once the run's contexts (104 bytes each) are gone.
    if (owned) owned->contexts = std::vector<ContextInfo>();
    if (options.children) view.children = call_graph_of_rows(view, options.children_of);
  } else if (options.children) {
    view.children = call_graph_of_run(run, view, options.children_of);
  }
  view.locks = lock_rows(run);
  view.threads = thread_rows(run);
  view.quality = quality_of(run);
  view.starvation = starvation_of(run);
  if (owned) {
    // Assigned new vectors: `= {}` would keep their capacity.
    owned->contexts = std::vector<ContextInfo>();
    owned->context_bins = std::vector<double>();
  }
  return view;
}

}  // namespace

ProfileView analyze(const Run& run, const ViewOptions& options) {
  std::optional<Run> folded = options.all_frames ? std::nullopt : fold_system_frames(run);
  return folded ? view_of(*folded, options, true, &*folded) : view_of(run, options, false, nullptr);
}

ProfileView analyze_taking_contexts(Run& run, const ViewOptions& options) {
  std::optional<Run> folded = options.all_frames ? std::nullopt : fold_system_frames(run);
  if (folded) run = std::move(*folded);
  return view_of(run, options, folded.has_value(), &run);
}

}  // namespace quartz::analysis
