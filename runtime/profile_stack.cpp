// Slow paths of the profile stack: resynchronisation, out-of-order releases, inheritance
// and the lock-free reader. See profile_stack.h for the publication protocol.
#include "runtime/profile_stack.h"

namespace quartz::rt {

void ProfileStack::reset(StackEntry* entries, uint32_t capacity) {
  entries_ = entries;
  capacity_ = capacity;
  base_ = 0;
  overflows_.store(0, std::memory_order_relaxed);
  mismatches_.store(0, std::memory_order_relaxed);
  // Keep seq moving forward so a reader that saw the previous owner's word never
  // mistakes the new contents for an unchanged copy.
  const uint64_t seq = (word_.load(std::memory_order_relaxed) >> 32) | 1;
  word_.store((seq + 1) << 32, std::memory_order_release);
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

void ProfileStack::restore_entry(uint32_t index, uintptr_t address, EntryTag tag) {
  const uint64_t begun = begin_rewrite();
  entries_[index].address.store(address, std::memory_order_relaxed);
  entries_[index].tag.store(tag, std::memory_order_relaxed);
  entries_[index].repeat = 0;
  end_rewrite(begun, static_cast<uint32_t>(begun));
}

int ProfileStack::find(uintptr_t address, bool procedure) const {
  const uint32_t depth = static_cast<uint32_t>(word_.load(std::memory_order_relaxed));
  const uint32_t stored = depth < capacity_ ? depth : capacity_;
  for (uint32_t i = stored; i > base_; --i) {
    const StackEntry& e = entries_[i - 1];
    if (e.address.load(std::memory_order_relaxed) != address) continue;
    const bool is_procedure = e.tag.load(std::memory_order_relaxed) == kProcedureTag;
    if (is_procedure == procedure) return static_cast<int>(i - 1);
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
  if (depth != 0 && depth <= base_) {
    // An inherited entry can only fold repeats of the thread's own first calls.
    StackEntry& top = entries_[depth - 1];
    if (top.address.load(std::memory_order_relaxed) == address && top.repeat != 0) {
      --top.repeat;
      return;
    }
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
  if (target.repeat != 0) {
    --target.repeat;
    ++keep;
  }
  for (uint32_t i = static_cast<uint32_t>(found) + 1; i < depth; ++i) {
    const EntryTag tag = entries_[i].tag.load(std::memory_order_relaxed);
    const EntryRole role = tag_role(tag);
    if (role != EntryRole::holding && role != EntryRole::released) continue;
    if (keep != i) {
      entries_[keep].address.store(entries_[i].address.load(std::memory_order_relaxed),
                                   std::memory_order_relaxed);
      entries_[keep].tag.store(tag, std::memory_order_relaxed);
      entries_[keep].repeat = entries_[i].repeat;
    }
    ++keep;
  }
  end_rewrite(begun, keep);
}

bool ProfileStack::pop_object(uintptr_t address) {
  const uint64_t word = word_.load(std::memory_order_relaxed);
  const uint32_t depth = static_cast<uint32_t>(word);
  if (depth > capacity_) {
    word_.store(word + kSeqStep - 1, std::memory_order_release);
    return true;
  }
  if (depth > base_) {
    StackEntry& top = entries_[depth - 1];
    if (top.address.load(std::memory_order_relaxed) == address &&
        top.tag.load(std::memory_order_relaxed) != kProcedureTag) {
      if (top.repeat != 0) {
        --top.repeat;
      } else {
        word_.store(word + kSeqStep - 1, std::memory_order_release);
      }
      return true;
    }
  }
  const int found = find(address, /*procedure=*/false);
  if (found < 0) {
    bump(mismatches_);
    return false;
  }
  StackEntry& target = entries_[found];
  if (target.repeat != 0) {
    --target.repeat;
    return true;
  }
  const uint64_t begun = begin_rewrite();
  for (uint32_t i = static_cast<uint32_t>(found) + 1; i < depth; ++i) {
    StackEntry& from = entries_[i];
    StackEntry& to = entries_[i - 1];
    to.address.store(from.address.load(std::memory_order_relaxed), std::memory_order_relaxed);
    to.tag.store(from.tag.load(std::memory_order_relaxed), std::memory_order_relaxed);
    to.repeat = from.repeat;
  }
  end_rewrite(begun, depth - 1);
  return true;
}

bool ProfileStack::set_role(uintptr_t address, EntryRole role) {
  const int found = find(address, /*procedure=*/false);
  if (found < 0) return false;
  StackEntry& e = entries_[found];
  const EntryTag tag = e.tag.load(std::memory_order_relaxed);
  // One store: a reader sees the old role or the new one, both consistent.
  e.tag.store(make_tag(tag_kind(tag), role), std::memory_order_relaxed);
  return true;
}

void ProfileStack::inherit(const ProfileStack& parent) {
  const uint32_t parent_depth =
      static_cast<uint32_t>(parent.word_.load(std::memory_order_relaxed));
  const uint32_t stored = parent_depth < parent.capacity_ ? parent_depth : parent.capacity_;
  uint32_t n = 0;
  for (uint32_t i = 0; i < stored && n < capacity_; ++i) {
    const StackEntry& from = parent.entries_[i];
    if (from.tag.load(std::memory_order_relaxed) != kProcedureTag) continue;  // locks stay
    StackEntry& to = entries_[n++];
    to.address.store(from.address.load(std::memory_order_relaxed), std::memory_order_relaxed);
    to.tag.store(kProcedureTag, std::memory_order_relaxed);
    to.repeat = 0;
  }
  base_ = n;
  const uint64_t seq = (word_.load(std::memory_order_relaxed) >> 32) + 2;
  word_.store((seq & ~uint64_t{1}) << 32 | n, std::memory_order_release);
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
    out[i].tag = entries_[i].tag.load(std::memory_order_relaxed);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  if (word_.load(std::memory_order_relaxed) != before) return false;
  *depth = n;
  *true_depth = published;
  return true;
}

}  // namespace quartz::rt
