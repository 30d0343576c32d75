#include "export/collapsed.h"

#include <string>

#include "export/context_stacks.h"

namespace quartz::exports {
namespace {

// ';' separates frames and a line ends the stack: neither may appear inside a name.
std::string frame(std::string name) {
  for (char& c : name) {
    if (c == ';') c = ',';
    if (c == '\n' || c == '\r') c = ' ';
  }
  return name;
}

}  // namespace

void write_collapsed(std::ostream& out, const analysis::ProfileView& view) {
  const auto stacks = context_stacks(view);
  for (size_t i = 0; i < view.contexts.size(); ++i) {
    const int64_t weight = nanoseconds(view.contexts[i].normalized_self_s);
    if (weight <= 0) continue;
    std::string line;
    for (uint32_t c : stacks[i])
      line += (line.empty() ? "" : ";") + frame(view.name_of(view.contexts[c]));
    out << line << " " << weight << "\n";
  }
}

}  // namespace quartz::exports
