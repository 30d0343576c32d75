// Number formatting and line width shared by the text reports (`quartz report`,
// `quartz predict`, `quartz diagnose`).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/profile_view.h"

namespace quartz::analysis::text {

// Every line of a text report fits in this many columns (C++ names are shortened to fit,
// other long lines wrapped).
inline constexpr size_t kColumns = 120;

// Columns a terminal gives `s`: its UTF-8 code points (the bars are one column each).
size_t columns(const std::string& s);

// "name  [location]" in at most `width` columns: the name shortened first (fit_name), the
// location cut last; no brackets when there is no location.
std::string name_at(const std::string& name, const std::string& location, size_t width);

// An object's name (analysis::object_names) in at most `width` columns: its place
// ("(file.c:12)", "(thread 3)") and id ("#7") kept whole, what comes before shortened
// (fit_name), so that objects named at different lines stay apart.
std::string object_name_in(const std::string& name, size_t width);

// `text` with every line longer than `width` columns broken at spaces; the lines that
// continue one are indented four columns past it.
std::string wrap_lines(const std::string& text, size_t width = kColumns);

inline std::string format(const char* spec, double v) {
  char out[64];
  std::snprintf(out, sizeof out, spec, v);
  return out;
}

// Seconds with a unit that keeps three significant digits readable.
inline std::string seconds(double s) {
  const double a = std::fabs(s);
  if (a == 0) return "0 s";
  if (a >= 100) return format("%.1f s", s);
  if (a >= 1) return format("%.3f s", s);
  if (a >= 1e-3) return format("%.2f ms", s * 1e3);
  return format("%.1f us", s * 1e6);
}

// A range of seconds in the unit of its top: "600.1-640.0 ms", "1.203-1.340 s".
inline std::string seconds_range(double low, double high) {
  const double a = std::max(std::fabs(low), std::fabs(high));
  if (a >= 100) return format("%.1f", low) + format("-%.1f s", high);
  if (a >= 1) return format("%.3f", low) + format("-%.3f s", high);
  if (a >= 1e-3) return format("%.1f", low * 1e3) + format("-%.1f ms", high * 1e3);
  return format("%.1f", low * 1e6) + format("-%.1f us", high * 1e6);
}

inline std::string percent(double part, double whole) {
  const std::optional<double> fraction = share(part, whole);
  return fraction ? format("%5.1f%%", 100 * *fraction) : std::string("    -");
}

// A change against a reference, signed: "-12.5%" (and "+0.0%" for what rounds to nothing).
inline std::string change(double value, double reference) {
  if (!(reference > 0)) return "-";
  const double percent = 100 * (value - reference) / reference;
  return format("%+.1f%%", std::fabs(percent) < 0.05 ? 0.0 : percent);
}

inline std::string pad(const std::string& s, size_t width, bool right = true) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

inline std::string bar(double fraction, size_t width) {
  const size_t n = static_cast<size_t>(std::lround(std::clamp(fraction, 0.0, 1.0) * width));
  std::string s;
  for (size_t i = 0; i < n; ++i) s += "\u2588";
  return s + std::string(width - n, ' ');
}

}  // namespace quartz::analysis::text
