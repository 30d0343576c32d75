// The Run's own accessors (run.h): its contexts' columns and its run-section values.
#include "profile/run.h"

#include <algorithm>
#include <cstdlib>

namespace quartz::profile {

void Run::add_context(ContextInfo context, const ContextRecord& record) {
  context.id = static_cast<uint32_t>(contexts.size());
  context.own = record.states;
  contexts.push_back(context);
  const size_t at = context_bins.size();
  context_bins.resize(at + 2 * bins(), 0);
  std::copy_n(record.processor.begin(), std::min(bins(), record.processor.size()),
              context_bins.begin() + static_cast<ptrdiff_t>(at));
  std::copy_n(record.normalized.begin(), std::min(bins(), record.normalized.size()),
              context_bins.begin() + static_cast<ptrdiff_t>(at + bins()));
}

ContextRecord Run::record_of(size_t context) const {
  const auto processor = processor_of(context), normalized = normalized_of(context);
  return {{processor.begin(), processor.end()},
          {normalized.begin(), normalized.end()},
          contexts[context].own};
}

double Run::number(const std::string& key) const {
  auto it = info.find(key);
  if (it == info.end()) return 0;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  return end && *end == '\0' ? v : 0;
}

std::string Run::text(const std::string& key) const {
  auto it = info.find(key);
  return it == info.end() ? std::string() : it->second;
}

}  // namespace quartz::profile
