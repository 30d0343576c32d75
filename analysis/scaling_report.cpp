#include "analysis/scaling_report.h"

#include <nlohmann/json.hpp>

#include "analysis/text_format.h"

namespace quartz::analysis {
namespace {

using text::format;
using text::pad;
using text::seconds;

}  // namespace

std::vector<std::string> scaling_notes(const Scaling& s, uint32_t available) {
  std::vector<std::string> out;
  if (!s.processors.empty() && s.processors[0] != 1) {
    out.push_back("no run on 1 processor: speedup and efficiency are relative to " +
                  std::to_string(s.processors[0]) + " processors");
  }
  if (!s.non_scalability_known) {
    out.push_back("non-scalability needs runs on two processor counts above the base" +
                  std::string(available < 3 ? "; this machine has " + std::to_string(available) +
                                                  " processors"
                                            : ""));
  }
  if (!s.processors.empty() && s.processors.back() < available) {
    out.push_back("measured up to " + std::to_string(s.processors.back()) + " of " +
                  std::to_string(available) + " processors");
  }
  return out;
}

void print_scaling(std::ostream& out, const Scaling& s, uint32_t available, size_t top) {
  if (s.processors.empty()) return;
  const double widest = s.processors.back();
  out << "processors     elapsed  runs  min..max              speedup  efficiency  speedup, ideal "
         "dotted\n";
  for (size_t i = 0; i < s.processors.size(); ++i) {
    // A bar of the speedup, dots up to the ideal one (p / p0), on a scale of the most
    // processors measured.
    constexpr size_t kWidth = 24;
    const double ideal = s.ideal_speedup[i];
    const size_t got =
        static_cast<size_t>(std::lround(std::clamp(s.speedup[i] / widest, 0.0, 1.0) * kWidth));
    const size_t want = static_cast<size_t>(std::lround(std::min(1.0, ideal / widest) * kWidth));
    std::string chart;
    for (size_t k = 0; k < std::max(got, want); ++k) chart += k < got ? "\u2588" : ".";
    out << pad(std::to_string(s.processors[i]), 10) << pad(seconds(s.elapsed_s[i]), 12)
        << pad(std::to_string(s.runs[i]), 6) << "  "
        << pad(seconds(s.min_s[i]) + ".." + seconds(s.max_s[i]), 20, false)
        << format("%9.2f", s.speedup[i]) << format("%12.2f", s.efficiency[i]) << "  " << chart
        << "\n";
  }
  if (s.non_scalability_known) {
    out << "non-scalability (mean - minimum efficiency above the base): "
        << format("%.2f", s.non_scalability) << "\n";
  }
  for (const std::string& note : scaling_notes(s, available)) out << "note: " << note << "\n";
  if (s.processors.size() < 2) return;

  out << "\nWhere the time lost with more processors goes: capacity taken beyond the base, "
         "time x processors\n";
  out << "  kind        lost at " << pad(std::to_string(s.processors.back()), 3, false)
      << "  efficiency by processors      name\n";
  size_t shown = 0;
  for (const RegionScaling& r : s.regions) {
    if (shown == top || !(r.lost_s.back() > 0)) break;
    std::string efficiencies;
    for (double e : r.efficiency) efficiencies += format(" %5.2f", e);
    out << "  " << pad(r.kind, 10, false) << pad(seconds(r.lost_s.back()), 11) << "  "
        << pad(efficiencies, 28, false) << "  " << r.name
        << (r.location.empty() ? "" : "  [" + r.location + "]") << "\n";
    ++shown;
  }
  if (shown == 0) out << "  none: nothing took more processor capacity than at the base\n";
}

nlohmann::json scaling_json(const Scaling& s, uint32_t available) {
  nlohmann::json points = nlohmann::json::array();
  for (size_t i = 0; i < s.processors.size(); ++i) {
    points.push_back({{"processors", s.processors[i]},
                      {"runs", s.runs[i]},
                      {"elapsed_s", s.elapsed_s[i]},
                      {"min_s", s.min_s[i]},
                      {"max_s", s.max_s[i]},
                      {"speedup", s.speedup[i]},
                      {"efficiency", s.efficiency[i]}});
  }
  nlohmann::json regions = nlohmann::json::array();
  for (const RegionScaling& r : s.regions) {
    nlohmann::json inefficiency = nlohmann::json::array();
    for (double e : r.efficiency) inefficiency.push_back(1 - e);
    regions.push_back({{"kind", r.kind},
                       {"name", r.name},
                       {"location", r.location},
                       {"time_s", r.time_s},
                       {"efficiency", r.efficiency},
                       {"inefficiency", inefficiency},
                       {"lost_s", r.lost_s},
                       {"non_scalability", r.non_scalability}});
  }
  nlohmann::json out{{"available_processors", available},
                     {"points", points},
                     {"regions", regions},
                     {"notes", scaling_notes(s, available)}};
  out["non_scalability"] =
      s.non_scalability_known ? nlohmann::json(s.non_scalability) : nlohmann::json(nullptr);
  return out;
}

}  // namespace quartz::analysis
