// Slow paths of the profile stack: resynchronisation, out-of-order releases, inheritance
// and the lock-free reader. See profile_stack.h for the publication protocol.
#include "runtime/profile_stack.h"

namespace quartz::rt {
namespace {

QUARTZ_ALWAYS_INLINE bool is_procedure(uint64_t meta) {
  return tag_kind(meta_tag(meta)) == EntryKind::procedure;
}

QUARTZ_ALWAYS_INLINE void copy_entry(StackEntry& to, const StackEntry& from) {
  to.address.store(from.address.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.meta.store(from.meta.load(std::memory_order_relaxed), std::memory_order_relaxed);
  to.child_edge = from.child_edge;
}

}  // namespace

void ProfileStack::reset(StackEntry* entries, uint32_t capacity) {
  entries_ = entries;
  capacity_ = capacity;
  overflows_.store(0, std::memory_order_relaxed);
  mismatches_.store(0, std::memory_order_relaxed);
  // Keep seq moving forward so a reader that saw the previous owner's word never
  // mistakes the new contents for an unchanged copy.
  const uint64_t seq = (word_.load(std::memory_order_relaxed) >> 32) | 1;
  word_.store((seq + 1) << 32, std::memory_order_release);
}

uintptr_t ProfileStack::note_unstored(uintptr_t address, EntryTag tag) {
  const uint32_t depth = static_cast<uint32_t>(word_.load(std::memory_order_relaxed));
  if (depth - 1 >= capacity_) {
    bump(overflows_);
    return 0;
  }
  const StackEntry& top = entries_[depth - 1];
  const uintptr_t below = top.address.load(std::memory_order_relaxed);
  if (below != address || meta_tag(top.meta.load(std::memory_order_relaxed)) != tag) {
    bump(overflows_);
  }
  return caller_at(&top);
}

uintptr_t ProfileStack::innermost_procedure() const {
  const uint32_t depth = static_cast<uint32_t>(word_.load(std::memory_order_relaxed));
  if (depth == 0) return 0;
  return caller_at(&entries_[std::min(depth, capacity_) - 1]);
}

uintptr_t ProfileStack::caller_at(const StackEntry* entry) const {
  for (size_t i = static_cast<size_t>(entry - entries_) + 1; i-- > 0;) {
    const StackEntry& e = entries_[i];
    if (tag_kind(meta_tag(e.meta.load(std::memory_order_relaxed))) == EntryKind::procedure) {
      return e.address.load(std::memory_order_relaxed);
    }
  }
  return 0;
}

uint64_t ProfileStack::begin_rewrite() {
  const uint64_t word = word_.load(std::memory_order_relaxed);
  word_.store(word + kSeqUnit, std::memory_order_relaxed);  // seq odd: readers back off
  std::atomic_thread_fence(std::memory_order_release);
  return word + kSeqUnit;
}

void ProfileStack::end_rewrite(uint64_t begun_word, uint32_t new_depth) {
  const uint64_t seq = (begun_word >> 32) + 1;
  word_.store(seq << 32 | new_depth, std::memory_order_release);
}

void ProfileStack::restore_entry(StackEntry* slot, uintptr_t address, EntryTag tag) {
  const uint64_t begun = begin_rewrite();
  fill_entry(*slot, address, tag);
  end_rewrite(begun, static_cast<uint32_t>(begun));
}

// The highest stored entry for `address`: a procedure the thread entered itself (never an
// inherited one), or a synchronization object.
int ProfileStack::find(uintptr_t address, bool procedure) const {
  const uint32_t depth = static_cast<uint32_t>(word_.load(std::memory_order_relaxed));
  const uint32_t stored = depth < capacity_ ? depth : capacity_;
  for (uint32_t i = stored; i > 0; --i) {
    const StackEntry& e = entries_[i - 1];
    if (e.address.load(std::memory_order_relaxed) != address) continue;
    const EntryTag tag = meta_tag(e.meta.load(std::memory_order_relaxed));
    if (procedure ? tag == kProcedureTag : tag_kind(tag) != EntryKind::procedure) {
      return static_cast<int>(i - 1);
    }
  }
  return -1;
}

void ProfileStack::pop_procedure_slow(uintptr_t address) {
  const uint64_t word = word_.load(std::memory_order_relaxed);
  const uint32_t depth = static_cast<uint32_t>(word);
  if (depth > capacity_) {
    // Past capacity nothing is stored to check against: trust that exits pair with
    // entries, as they do unless a longjmp leaves from this deep.
    word_.store(word + kSeqStep - 1, std::memory_order_release);
    return;
  }
  const int found = find(address, /*procedure=*/true);
  if (found < 0) {
    // An exit with no matching entry: the procedure was entered before this thread was
    // registered, or its entry was dropped. Nothing to undo.
    bump(mismatches_);
    return;
  }
  // Entries above `found` belong to frames that were left without running their exit
  // hooks. Drop them, but keep locks still held (or released into a condition wait):
  // they were acquired in a callee and are released later by the caller.
  const uint64_t begun = begin_rewrite();
  StackEntry& target = entries_[found];
  uint32_t keep = static_cast<uint32_t>(found);
  const uint64_t target_meta = target.meta.load(std::memory_order_relaxed);
  if (target_meta >= kRepeatUnit) {  // an outer activation of a folded recursion remains
    target.meta.store(target_meta - kRepeatUnit, std::memory_order_relaxed);
    ++keep;
  }
  for (uint32_t i = static_cast<uint32_t>(found) + 1; i < depth; ++i) {
    const EntryRole role = tag_role(meta_tag(entries_[i].meta.load(std::memory_order_relaxed)));
    if (role != EntryRole::holding && role != EntryRole::released) continue;
    if (keep != i) copy_entry(entries_[keep], entries_[i]);
    ++keep;
  }
  end_rewrite(begun, keep);
}

bool ProfileStack::pop_object_slow(uintptr_t address) {
  const uint64_t word = word_.load(std::memory_order_relaxed);
  const uint32_t depth = static_cast<uint32_t>(word);
  if (depth > capacity_) {
    word_.store(word + kSeqStep - 1, std::memory_order_release);
    return true;
  }
  const int found = find(address, /*procedure=*/false);
  if (found < 0) return false;  // released by a thread that did not hold it: its error
  StackEntry& target = entries_[found];
  const uint64_t meta = target.meta.load(std::memory_order_relaxed);
  if (meta >= kRepeatUnit) {  // a recursive lock taken more than once
    target.meta.store(meta - kRepeatUnit, std::memory_order_relaxed);
    return true;
  }
  if (static_cast<uint32_t>(found) + 1 == depth) {
    word_.store(word + kSeqStep - 1, std::memory_order_release);
    return true;
  }
  const uint64_t begun = begin_rewrite();
  for (uint32_t i = static_cast<uint32_t>(found) + 1; i < depth; ++i) {
    copy_entry(entries_[i - 1], entries_[i]);
  }
  end_rewrite(begun, depth - 1);
  return true;
}

bool ProfileStack::set_role(uintptr_t address, EntryRole role) {
  const int found = find(address, /*procedure=*/false);
  if (found < 0) return false;
  StackEntry& e = entries_[found];
  const uint64_t meta = e.meta.load(std::memory_order_relaxed);
  // One store: a reader sees the old role or the new one, both consistent.
  e.meta.store((meta & ~uint64_t{0xffffffff}) | make_tag(tag_kind(meta_tag(meta)), role),
               std::memory_order_relaxed);
  return true;
}

void ProfileStack::inherit(const ProfileStack& parent) {
  const uint32_t parent_depth = static_cast<uint32_t>(parent.word_.load(std::memory_order_relaxed));
  const uint32_t stored = parent_depth < parent.capacity_ ? parent_depth : parent.capacity_;
  uint32_t n = 0;
  for (uint32_t i = 0; i < stored && n < capacity_; ++i) {
    const StackEntry& from = parent.entries_[i];
    if (!is_procedure(from.meta.load(std::memory_order_relaxed))) continue;  // locks stay
    fill_entry(entries_[n++], from.address.load(std::memory_order_relaxed), kInheritedTag);
  }
  const uint64_t seq = (word_.load(std::memory_order_relaxed) >> 32) + 2;
  word_.store((seq & ~uint64_t{1}) << 32 | n, std::memory_order_release);
}

void ProfileStack::rebase(const uintptr_t* frames, uint32_t n) {
  if (n > capacity_) n = capacity_;
  const uint64_t begun = begin_rewrite();
  for (uint32_t i = 0; i < n; ++i) fill_entry(entries_[i], frames[i], kInheritedTag);
  end_rewrite(begun, n);
}

uint32_t ProfileStack::copy_procedures(uintptr_t* out, uint32_t max) const {
  const uint32_t depth = static_cast<uint32_t>(word_.load(std::memory_order_relaxed));
  const uint32_t stored = depth < capacity_ ? depth : capacity_;
  uint32_t n = 0;
  for (uint32_t i = 0; i < stored && n < max; ++i) {
    if (!is_procedure(entries_[i].meta.load(std::memory_order_relaxed))) continue;
    out[n++] = entries_[i].address.load(std::memory_order_relaxed);
  }
  return n;
}

bool ProfileStack::read(EntryValue* out, uint32_t out_capacity, uint32_t* depth,
                        uint32_t* true_depth) const {
  const uint64_t before = word_.load(std::memory_order_acquire);
  if ((before >> 32) & 1) return false;
  const uint32_t published = static_cast<uint32_t>(before);
  uint32_t n = published < capacity_ ? published : capacity_;
  if (n > out_capacity) n = out_capacity;
  for (uint32_t i = 0; i < n; ++i) {
    out[i].address = entries_[i].address.load(std::memory_order_relaxed);
    out[i].tag = meta_tag(entries_[i].meta.load(std::memory_order_relaxed));
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (word_.load(std::memory_order_relaxed) != before) return false;
  *depth = n;
  *true_depth = published;
  return true;
}

}  // namespace quartz::rt
