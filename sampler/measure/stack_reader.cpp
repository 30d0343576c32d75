#include "sampler/measure/stack_reader.h"

#include "runtime/openmp_regions.h"

namespace quartz::sampler {

using rt::EntryKind;
using rt::EntryRole;
using rt::EntryValue;
using rt::ThreadState;

namespace {
// A libomp worker waiting at the end of a region that has ended waits for the next one
// (runtime/openmp_regions.h): it is idle.
QUARTZ_NOINSTR void idle_past_region_end(EntryValue& top) {
  if (rt::tag_kind(top.tag) != EntryKind::omp_region_end ||
      rt::tag_role(top.tag) != EntryRole::waiting || !rt::openmp::region_over(top.address)) {
    return;
  }
  top.address = reinterpret_cast<uintptr_t>(&rt::openmp::g_idle.address);
  top.tag = rt::make_tag(EntryKind::omp_idle, EntryRole::waiting);
}
}  // namespace

bool StackReader::init(uint32_t stack_capacity, uint32_t max_slots,
                       const rt::ObjectRegistry* objects) {
  objects_ = objects;
  capacity_ = stack_capacity;
  return remembered_.reserve(max_slots) && remembered_.resize_at_least(max_slots) &&
         entries_.reserve(size_t{max_slots} * stack_capacity) &&
         entries_.resize_at_least(size_t{max_slots} * stack_capacity) &&
         contexts_.reserve(size_t{max_slots} * stack_capacity) &&
         contexts_.resize_at_least(size_t{max_slots} * stack_capacity) &&
         scratch_.reserve(stack_capacity) && scratch_.resize_at_least(stack_capacity);
}

// A barrier's count, from its pthread_barrier_init: its parties released by the last
// arrival stay in the call until they run again, and look waiting beside the next round's.
void StackReader::note_parties(ProfileTables& tables, uint32_t context, uintptr_t address) {
  if (context == kNone || !objects_) return;
  ObjectEntry& o = tables.object_entry(tables.context_node(context).entity);
  if (o.parties) return;
  if (const rt::ObjectRecord* r = objects_->find(address)) {
    o.parties = r->trace_parameter.load(std::memory_order_relaxed);
  }
}

StackRead StackReader::read(ProfileTables& tables, uint32_t ordinal, bool fresh,
                            const rt::ThreadBlock& block) {
  Remembered& memory = remembered_[ordinal];
  if (fresh) memory = Remembered{0, kNone};
  EntryValue* previous = &entries_[size_t{ordinal} * capacity_];
  uint32_t* ids = &contexts_[size_t{ordinal} * capacity_];

  const ThreadState runtime_state = block.state.load(std::memory_order_acquire);
  uint32_t depth = 0, true_depth = 0;
  bool copied = false;
  for (int attempt = 0; attempt < 4 && !copied; ++attempt) {
    copied = block.stack.read(scratch_.data(), capacity_, &depth, &true_depth);
  }
  StackRead result{memory.leaf, capture::kBusy, 0, !copied, kNone};
  if (runtime_state == ThreadState::spinning) result.state = capture::kSpinning;
  if (runtime_state == ThreadState::blocked) result.state = capture::kBlocked;
  if (!copied) return result;
  if (depth) idle_past_region_end(scratch_[depth - 1]);

  uint32_t same = 0;  // entries unchanged since the last read: their contexts stand
  while (same < depth && same < memory.depth && scratch_[same].address == previous[same].address &&
         rt::tag_kind(scratch_[same].tag) == rt::tag_kind(previous[same].tag)) {
    ++same;
  }
  uint32_t parent = same ? ids[same - 1] : kNone;
  for (uint32_t i = same; i < depth; ++i) {
    parent = tables.context(parent, scratch_[i].address,
                            static_cast<uint32_t>(rt::tag_kind(scratch_[i].tag)));
    ids[i] = parent;
    previous[i] = scratch_[i];
    if (rt::tag_kind(scratch_[i].tag) == EntryKind::barrier) {
      note_parties(tables, parent, scratch_[i].address);
    }
  }
  memory.depth = depth;
  memory.leaf = depth ? ids[depth - 1] : kNone;

  result.context = memory.leaf;
  if (depth) {
    const EntryRole role = rt::tag_role(scratch_[depth - 1].tag);
    result.top_role = role == EntryRole::waiting    ? kRoleWaiting
                      : role == EntryRole::holding  ? kRoleHolding
                      : role == EntryRole::released ? kRoleReleased
                                                    : kRoleNone;
    // A mutex waiter is left busy by the runtime (it cannot know it will wait): the entry
    // on top says it waits.
    if (result.top_role == kRoleWaiting && result.state == capture::kBusy) {
      result.state = capture::kBlocked;
    }
    if (result.top_role == kRoleWaiting) {  // the mutex a condition wait released, if any
      for (uint32_t i = depth - 1; i-- > 0 && result.released == kNone;) {
        if (rt::tag_role(scratch_[i].tag) == EntryRole::released) result.released = ids[i];
      }
    }
  }
  return result;
}

}  // namespace quartz::sampler
