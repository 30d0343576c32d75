#include "analysis/diagnosis_report.h"

#include "analysis/text_format.h"

namespace quartz::analysis {

namespace {

constexpr size_t kIndent = 24;  // under the finding's name
using text::kColumns;

// `text` after `first` (the first line's lead), broken at spaces into lines of at most
// kColumns, each later one indented like the first.
void print_wrapped(std::ostream& out, const std::string& first, const std::string& text) {
  std::string line = std::string(kIndent, ' ') + first;
  const size_t lead = line.size();
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (line.size() > lead && line.size() + 1 + word.size() > kColumns) {
      out << line << "\n";
      line = std::string(lead, ' ');
    }
    line += (line.size() > lead ? " " : "") + word;
    at = end + 1;
  }
  out << line << "\n";
}

void print_title(std::ostream& out, const Finding& f) {
  const std::string property = std::string(property_name(f.property)) + ": ";
  out << "  " << text::format("%7.1f%%", 100 * f.severity) << "  "
      << text::format("%10.2f", f.confidence) << "  " << property
      << text::name_at(f.subject, f.location, kColumns - kIndent - property.size()) << "\n";
}

void print_finding(std::ostream& out, const Finding& f) {
  print_title(out, f);
  print_wrapped(out, "", f.evidence);
  print_wrapped(out, "-> ", f.advice);
}

size_t program_findings(const std::vector<Finding>& findings) {
  size_t n = 0;
  for (const Finding& f : findings) n += !about_measurement(f.property);
  return n;
}

}  // namespace

void print_findings(std::ostream& out, const std::vector<Finding>& findings) {
  out << "Findings, by the share of the elapsed time each explains\n";
  const size_t program = program_findings(findings);
  if (program == 0) out << "  none above 1% of the elapsed time\n";
  if (program > 0) out << "  severity  confidence  finding\n";
  for (size_t i = 0; i < program; ++i) print_finding(out, findings[i]);
  if (findings.size() > program) out << "About this measurement\n";
  for (size_t i = program; i < findings.size(); ++i) print_finding(out, findings[i]);
}

void print_findings_summary(std::ostream& out, const std::vector<Finding>& findings, size_t top) {
  out << "Findings (quartz diagnose: the evidence and what to do)\n";
  const size_t program = program_findings(findings);
  if (program == 0) out << "  none above 1% of the elapsed time\n";
  if (program > 0) out << "  severity  confidence  finding\n";
  for (size_t i = 0; i < program && i < top; ++i) print_title(out, findings[i]);
}

}  // namespace quartz::analysis
