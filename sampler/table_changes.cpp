#include "sampler/table_changes.h"

#include <cstring>

namespace quartz::sampler {

void note_change(TableChanges& changes, uint32_t kind, uint32_t index) {
  changes.note(kind, index);
}

bool TableChanges::init(const ProfileTables& tables) {
  const ProfileTables::Limits& limits = tables.limits();
  const RecordShape& shape = tables.shape();
  const uint32_t counts[kTableKinds] = {limits.contexts, limits.procedures, limits.objects,
                                        limits.threads};
  // A record is saved at most once a pass: room for every one of them.
  const size_t full = shape.full_size() * sizeof(double) + 8;
  const size_t saves =
      size_t{limits.contexts} * (shape.context_size() * sizeof(double) + sizeof(OneBusyApart) + 8) +
      size_t{limits.procedures} * (sizeof(ProcedureEntry) + full) +
      size_t{limits.objects} * (sizeof(ObjectEntry) + full + kQueueBins * sizeof(double)) +
      size_t{limits.threads} * (sizeof(ThreadEntry) + full);
  for (uint32_t k = 0; k < kTableKinds; ++k) {
    if (!marks_[k].reserve(counts[k]) || !saved_[k].reserve(counts[k]) ||
        !changed_[k].reserve(counts[k])) {
      return false;
    }
  }
  return saves_.reserve(saves) && program_saved_.reserve(shape.full_size()) &&
         program_saved_.resize_at_least(shape.full_size());
}

void TableChanges::note(uint32_t kind, uint32_t index) {
  support::MappedVector<uint32_t>& marks = marks_[kind];
  if (index >= marks.size() && !(marks.resize_at_least(size_t{index} + 1) &&
                                 saved_[kind].resize_at_least(size_t{index} + 1))) {
    return;  // past the table's limit: never handed out
  }
  if (marks[index] != epoch_) {
    marks[index] = epoch_;
    if (uint32_t* listed = changed_[kind].append()) *listed = index;
  }
  if (provisional_ && saved_[kind][index] != pass_) {
    saved_[kind][index] = pass_;
    save(kind, index);
  }
}

void TableChanges::next() {
  ++epoch_;
  for (auto& changed : changed_) changed.reuse();
}

uint32_t TableChanges::parts(ProfileTables& t, uint32_t kind, uint32_t index, Part* out) {
  const size_t full = t.shape_.full_size();
  switch (kind) {
    case kContextTable:
      out[0] = {&t.context_records_[size_t{index} * t.shape_.context_size()],
                t.shape_.context_size() * sizeof(double)};
      out[1] = {&t.context_apart_[index], sizeof(OneBusyApart)};
      return 2;
    case kProcedureTable:
      out[0] = {&t.procedures_[index], sizeof(ProcedureEntry)};
      out[1] = {&t.procedure_records_[size_t{index} * full], full * sizeof(double)};
      return 2;
    case kObjectTable:
      out[0] = {&t.objects_[index], sizeof(ObjectEntry)};
      out[1] = {&t.object_records_[size_t{index} * full], full * sizeof(double)};
      out[2] = {&t.object_queues_[size_t{index} * kQueueBins], kQueueBins * sizeof(double)};
      return 3;
    default:
      out[0] = {&t.threads_[index], sizeof(ThreadEntry)};
      out[1] = {&t.thread_records_[size_t{index} * full], full * sizeof(double)};
      return 2;
  }
}

void TableChanges::save(uint32_t kind, uint32_t index) {
  Part p[3];
  const uint32_t n = parts(*provisional_, kind, index, p);
  size_t bytes = 2 * sizeof(uint32_t);
  for (uint32_t i = 0; i < n; ++i) bytes += p[i].bytes;
  const size_t at = saves_.size();
  // Never short: init reserved room for every record once.
  if (!saves_.resize_at_least(at + bytes)) return;
  unsigned char* to = &saves_[at];
  memcpy(to, &kind, sizeof kind);
  memcpy(to + 4, &index, sizeof index);
  to += 8;
  for (uint32_t i = 0; i < n; ++i) {
    memcpy(to, p[i].at, p[i].bytes);
    to += p[i].bytes;
  }
}

void TableChanges::begin_provisional(ProfileTables& tables) {
  provisional_ = &tables;
  ++pass_;
  saves_.reuse();
  memcpy(program_saved_.data(), tables.program_record_.data(),
         tables.shape_.full_size() * sizeof(double));
  runnable_bins_saved_ = tables.runnable_bins_used_;
}

void TableChanges::end_provisional() {
  ProfileTables& tables = *provisional_;
  provisional_ = nullptr;
  next();
  memcpy(tables.program_record_.data(), program_saved_.data(),
         tables.shape_.full_size() * sizeof(double));
  tables.runnable_bins_used_ = runnable_bins_saved_;
  for (size_t at = 0; at < saves_.size();) {
    uint32_t kind, index;
    memcpy(&kind, &saves_[at], sizeof kind);
    memcpy(&index, &saves_[at + 4], sizeof index);
    at += 8;
    Part p[3];
    const uint32_t n = parts(tables, kind, index, p);
    for (uint32_t i = 0; i < n; ++i) {
      memcpy(p[i].at, &saves_[at], p[i].bytes);
      at += p[i].bytes;
    }
    note(kind, index);  // changed back: the next amendment has it again
  }
  saves_.reuse();
}

}  // namespace quartz::sampler
