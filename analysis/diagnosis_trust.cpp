// How far the diagnosis trusts a finding, and the profiler's intrusion: a property of the
// measurement, found when its cost is too large to ignore.
#include "analysis/diagnosis_properties.h"
#include "analysis/text_format.h"

namespace quartz::analysis::diagnosis {

using text::seconds;

// The sampling periods n behind the evidence give n / (n + 10) (10 periods give 0.5), less
// the share of torn stack copies, halved when the profiler's own cost is large, and lower
// for a run that did not end normally.
double confidence(const ProfileView& view, double evidence_s, double intrusion) {
  const double period = view.quality.period_s > 0 ? view.quality.period_s : 1e-3;
  const double periods = std::max(0.0, evidence_s) / period;
  double c = periods / (periods + 10) * (1 - clamp01(view.quality.torn_rate));
  if (intrusion > 0.1) c *= 0.5;
  if (!view.quality.final) c *= 0.8;
  return clamp01(c);
}

// The hooks' cost taken out of the threads' times, and the sampler's processor time when it
// shares the program's processors, over the processors' capacity.
double intrusion(const ProfileView& view) {
  const double capacity = view.elapsed_s * std::max(1u, view.processors);
  if (!(capacity > 0)) return 0;
  const double sampler = view.quality.reserved_core ? 0 : view.quality.sampler_cpu_s;
  return clamp01((view.quality.dilation_removed_s + sampler) / capacity);
}

void profiler_intrusion(const ProfileView& view, double overhead, std::vector<Finding>& out) {
  Finding f;
  f.property = Property::profiler_intrusion;
  f.severity = overhead;
  f.confidence = 1;
  f.subject = "the profiler";
  f.evidence = seconds(view.quality.dilation_removed_s) + " of hook cost taken out, " +
               seconds(view.quality.sampler_cpu_s) + " of sampler time, over " +
               seconds(view.elapsed_s * view.processors) + " of processor capacity";
  // Patched entries: what the run's own options change. The compiler's hooks: the build.
  f.advice = view.quality.patched_entries > 0
                 ? "the other figures are less exact: a smaller --budget turns off more of the "
                   "entries that cost the most, or --procedures patches only those named"
                 : "the other figures are less exact: build with clang (hooks after inlining), "
                   "or leave small hot functions uninstrumented";
  out.push_back(f);
}

}  // namespace quartz::analysis::diagnosis
