#include "analysis/context_tree.h"

#include <algorithm>
#include <numeric>
#include <span>

#include "analysis/context_lookups.h"
#include "analysis/profile_view.h"

namespace quartz::analysis {

using namespace quartz::profile;

void add_context_rows(const Run& run, std::vector<double> bins_by_context, ProfileView& view) {
  const size_t n = run.contexts.size();
  const size_t bins = view.bins();
  const EdgeCalls edge_calls = edge_calls_of(run);
  ViewNames names(run, view.names);
  std::vector<ContextRow>& rows = view.contexts;
  rows.assign(n, {});
  std::vector<double>& histograms = view.context_histograms;
  histograms = std::move(bins_by_context);
  histograms.resize(n * 2 * bins, 0);
  const auto sum = [bins](const double* values) {
    return std::accumulate(values, values + bins, 0.0);
  };
  for (size_t i = 0; i < n; ++i) {
    const ContextInfo& c = run.contexts[i];
    ContextRow& row = rows[i];
    row.id = c.id;
    row.parent = c.parent;
    row.address = c.address;
    row.kind = c.kind;
    row.name_index = names.index(c.address, c.kind);
    if (c.kind == capture::kProcedure) {
      // The caller is the nearest procedure above: objects held in between do not call.
      uint32_t up = c.parent;
      while (up != capture::kNoParent && run.contexts[up].kind != capture::kProcedure) {
        up = run.contexts[up].parent;
      }
      const uint64_t caller = up == capture::kNoParent ? 0 : run.contexts[up].address;
      auto it = edge_calls.find({caller, c.address});
      if (it != edge_calls.end()) row.calls = it->second;
    }
    // The run's [processor time, normalized] by processors busy become the view's
    // [normalized with the subtree (its own, until the sums below), normalized].
    double* histogram = histograms.data() + i * 2 * bins;
    row.processor_self_s = sum(histogram);
    row.normalized_self_s = sum(histogram + bins);
    std::copy_n(histogram + bins, bins, histogram);
    row.processor_s = row.processor_self_s;
    row.wait_self_s = c.own.state[capture::kSpinning] + c.own.state[capture::kBlocked];
  }
  // Inclusive values: children come after their parents.
  for (size_t i = n; i-- > 0;) {
    ContextRow& row = rows[i];
    row.normalized_s += row.normalized_self_s;
    if (row.parent == capture::kNoParent) continue;
    ContextRow& parent = rows[row.parent];
    parent.normalized_s += row.normalized_s;
    parent.processor_s += row.processor_s;
    const double* histogram = histograms.data() + i * 2 * bins;
    double* parent_histogram = histograms.data() + size_t{row.parent} * 2 * bins;
    for (size_t b = 0; b < bins; ++b) parent_histogram[b] += histogram[b];
  }
}

}  // namespace quartz::analysis
