// What changed in the sampler's tables since the last amendment (sampler/publish/amendment_log.h):
// every record ProfileTables hands out for writing is noted once per amendment. While
// provisional (the open window attributed in the tables themselves, for an amendment of
// the run as if it ended now), each record is saved before its first change and put back
// afterwards, so the window is attributed for good only when it closes. Mapped memory,
// never malloc; owned by the sampler thread.
#pragma once

#include <cstdint>

#include "sampler/tables.h"
#include "support/attributes.h"
#include "support/mapped_vector.h"

namespace quartz::sampler {

class TableChanges {
 public:
  // Reserves room for `tables`' limits (initialised); false without address space.
  QUARTZ_NOINSTR bool init(const ProfileTables& tables);

  // A record of table `kind` handed out for writing (ProfileTables' accessors).
  QUARTZ_NOINSTR void note(uint32_t kind, uint32_t index);
  // The records of `kind` changed since the last next(), each once.
  QUARTZ_NOINSTR const support::MappedVector<uint32_t>& changed(uint32_t kind) const {
    return changed_[kind];
  }
  // Forgets the changes so far: an amendment has them, or a capture built from the tables.
  QUARTZ_NOINSTR void next();

  // Records noted from now on are saved first (and the program's record, and the bins in
  // use), until end_provisional puts them back and notes them as changed again: the
  // amendment after has their values without the provisional changes.
  QUARTZ_NOINSTR void begin_provisional(ProfileTables& tables);
  QUARTZ_NOINSTR void end_provisional();

 private:
  QUARTZ_NOINSTR void save(uint32_t kind, uint32_t index);
  // The parts of a record: (address, bytes), at most three.
  struct Part {
    void* at;
    size_t bytes;
  };
  QUARTZ_NOINSTR static uint32_t parts(ProfileTables& tables, uint32_t kind, uint32_t index,
                                       Part* out);

  support::MappedVector<uint32_t> marks_[kTableKinds];  // the epoch each was last noted in
  support::MappedVector<uint32_t> saved_[kTableKinds];  // the provisional pass it was saved in
  support::MappedVector<uint32_t> changed_[kTableKinds];
  support::MappedVector<unsigned char> saves_;  // per record: u32 kind, u32 index, its parts
  support::MappedVector<double> program_saved_;
  ProfileTables* provisional_ = nullptr;  // the tables being changed provisionally
  uint32_t runnable_bins_saved_ = 0;
  uint32_t epoch_ = 1;
  uint32_t pass_ = 0;
};

}  // namespace quartz::sampler
