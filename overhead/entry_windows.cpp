#include "overhead/entry_windows.h"

#include <algorithm>

namespace quartz::sampler {
namespace {

constexpr uint32_t kMaxDepth = 1024;  // deeper paths are kept whole

}  // namespace

bool EntryWindows::init(uint32_t max_contexts) {
  ready_ = off_.reserve(4096) && sleds_.reserve(4096) && seen_.reserve(max_contexts) &&
           hidden_.reserve(max_contexts) && learned_.reserve(max_contexts) &&
           parts_.reserve(max_contexts);
  return ready_;
}

void EntryWindows::open(OverheadBudget& budget) {
  const auto& decided = budget.unpatched();
  if (decided.size() != decided_) {
    // New decisions: the procedures and entries to switch, and each context's path without
    // them, are found again.
    decided_ = decided.size();
    off_.reuse();
    sleds_.reuse();
    for (size_t i = 0; i < decided.size(); ++i) {
      if (!decided[i].off) continue;
      const uintptr_t sled = budget.program().entry_of(decided[i].procedure);
      uintptr_t* procedure = off_.append();
      uintptr_t* entry = sled ? sleds_.append() : nullptr;
      if (procedure) *procedure = decided[i].procedure;
      if (entry) *entry = sled;
    }
    std::sort(off_.data(), off_.data() + off_.size());
    std::sort(sleds_.data(), sleds_.data() + sleds_.size());
    for (size_t i = 0; i < learned_.size(); ++i) hidden_[learned_[i]] = 0;
  }
  budget.program().switch_entries(sleds_.data(), sleds_.size(), true);
  budget.window_opened();
  ++windows_;
}

void EntryWindows::close(OverheadBudget& budget) {
  budget.program().switch_entries(sleds_.data(), sleds_.size(), false);
  budget.window_closed();
}

void EntryWindows::learn(uint32_t context) {
  if (context == kNone || !seen_.resize_at_least(size_t{context} + 1) ||
      !hidden_.resize_at_least(size_t{context} + 1)) {
    return;
  }
  if (seen_[context]++ == 0) {
    uint32_t* added = learned_.append();
    if (added) *added = context;
  }
  ++reads_;
}

bool EntryWindows::is_off(uintptr_t procedure) const {
  return std::binary_search(off_.data(), off_.data() + off_.size(), procedure);
}

uint32_t EntryWindows::without_off(ProfileTables& tables, uint32_t context) const {
  uint32_t path[kMaxDepth];
  uint32_t depth = 0;
  for (uint32_t id = context; id != kNone; id = tables.context_node(id).parent) {
    if (depth == kMaxDepth) return context;
    path[depth++] = id;
  }
  uint32_t kept = kNone;
  bool changed = false;
  while (depth > 0) {
    const ContextNode node = tables.context_node(path[--depth]);
    if (node.kind == capture::kProcedure && is_off(node.address)) {
      changed = true;
      continue;
    }
    kept = changed ? tables.context(kept, node.address, node.kind) : path[depth];
  }
  return kept;
}

void EntryWindows::update(ProfileTables& tables, const OverheadBudget& budget) {
  parts_.reuse();
  for (size_t i = 0; i < learned_.size(); ++i) {
    const uint32_t context = learned_[i];
    if (hidden_[context] == 0) {
      const uint32_t hidden = without_off(tables, context);  // kNone: all of it was off
      hidden_[context] = (hidden == kNone ? context : hidden) + 1;
    }
    HiddenPart* part = parts_.append();
    if (!part) break;
    const double paid = budget.call_share(tables.context_node(context).address);
    *part = HiddenPart{hidden_[context] - 1, context,
                       static_cast<double>(seen_[context]) * (1 - std::min(paid, 1.0))};
  }
  HiddenPart* const parts = parts_.data();
  std::sort(parts, parts + parts_.size(), [](const HiddenPart& a, const HiddenPart& b) {
    return a.read != b.read ? a.read < b.read : a.context < b.context;
  });
  // Weights within each key's group; a group of the key alone hides nothing and goes.
  size_t kept = 0;
  for (size_t first = 0; first < parts_.size();) {
    size_t last = first;
    double reads = 0;
    while (last < parts_.size() && parts[last].read == parts[first].read) {
      reads += parts[last++].weight;
    }
    if (!(reads > 0) || (last - first == 1 && parts[first].context == parts[first].read)) {
      first = last;
      continue;
    }
    for (size_t i = first; i < last; ++i) {
      parts[kept] = parts[i];
      parts[kept++].weight = parts[i].weight / reads;
    }
    first = last;
  }
  while (parts_.size() > kept) parts_.pop_back();
}

}  // namespace quartz::sampler
