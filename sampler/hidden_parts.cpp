#include "sampler/hidden_parts.h"

#include <algorithm>

namespace quartz::sampler {

const HiddenPart* HiddenParts::of(uint32_t read, uint32_t* n) const {
  const HiddenPart* const end = parts + count;
  const HiddenPart* first = std::lower_bound(
      parts, end, read, [](const HiddenPart& p, uint32_t key) { return p.read < key; });
  const HiddenPart* last = first;
  while (last != end && last->read == read) ++last;
  *n = static_cast<uint32_t>(last - first);
  return *n ? first : nullptr;
}

uint32_t seen_below(ProfileTables& tables, uint32_t read, uint32_t seen, uintptr_t hidden) {
  // A context is made after its parent: an ancestor's id is smaller, and none below `read`'s
  // can be `read` or under it (`read` kNone: the root, above every context).
  for (uint32_t child = seen; child != kNone && (read == kNone || child > read);) {
    const ContextNode& node = tables.context_node(child);
    if (node.parent == read) {
      return node.kind == capture::kProcedure && node.address == hidden ? seen : read;
    }
    child = node.parent;
  }
  return read;
}

}  // namespace quartz::sampler
