// Reads one thread block per call: its state and stack, copied without locks (torn copies
// retried, then counted), turned into a calling-context id. Per registry slot it keeps the
// previous stack and its context ids, so that an unchanged prefix (the usual case between
// two snapshots) costs a comparison, not a lookup.
#pragma once

#include <cstdint>

#include "runtime/object_registry.h"
#include "runtime/profile_stack.h"
#include "runtime/thread_block.h"
#include "sampler/attribution.h"
#include "sampler/tables.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

struct StackRead {
  uint32_t context;  // leaf calling context, kNone for an empty stack
  uint8_t state;     // capture::ThreadState the runtime reports (a lock wait counts blocked)
  uint8_t top_role;  // TopRole of the leaf entry
  bool torn;         // the copy kept tearing: the previous context was reused
  // Under a wait on top, the context of the mutex it released (a condition wait's, however
  // many procedures lie between them: pbzip2 waits in a wrapper of its own); else kNone.
  uint32_t released;
};

class StackReader {
 public:
  // `objects`: where a barrier's count is read, the first time a stack shows it (none:
  // a barrier's queue is not capped by its count).
  QUARTZ_NOINSTR bool init(uint32_t stack_capacity, uint32_t max_slots,
                           const rt::ObjectRegistry* objects = nullptr);
  // Reads the block in registry slot `ordinal`. `fresh` says the slot holds a thread not
  // seen in it before (its remembered stack is dropped).
  QUARTZ_NOINSTR StackRead read(ProfileTables& tables, uint32_t ordinal, bool fresh,
                                const rt::ThreadBlock& block);

 private:
  struct Remembered {
    uint32_t depth;
    uint32_t leaf;
  };
  QUARTZ_NOINSTR void note_parties(ProfileTables& tables, uint32_t context, uintptr_t address);

  const rt::ObjectRegistry* objects_ = nullptr;
  uint32_t capacity_ = 0;
  support::MappedVector<Remembered> remembered_;   // per slot
  support::MappedVector<rt::EntryValue> entries_;  // per slot, capacity each
  support::MappedVector<uint32_t> contexts_;       // per slot, capacity each
  support::MappedVector<rt::EntryValue> scratch_;  // one stack copy
};

}  // namespace quartz::sampler
