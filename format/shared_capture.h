// The shared capture: a memory region that `quartz run` makes (a memfd) and the runtime in
// the program fills with its latest capture (capture_format.h), so that when the program
// ends in a way that runs none of its code (SIGKILL, a fatal signal, _exit, abort), the
// parent still writes the run to its capture path (DESIGN.md §3 "Files").
//
//   SharedCaptureHeader   one page
//   slot 0, slot 1        kSlotBytes each: complete captures, written alternately
//   log 0, log 1          kLogBytes each: amendments to the capture in the slot of that number
//
// The writer fills the slot that `published` does not name, then names it: whatever
// instant the program dies, the named slot holds a whole capture. A capture too big to
// build every period is amended instead (capture_format.h, amended_*): at each snapshot
// the sections that changed are appended to both logs, then each log's length stored
// after them; a slot's log starts again empty just before its capture is taken. Read only
// once the program has ended (no reader runs while it writes). The environment variable
// QUARTZ_SHARED_CAPTURE gives the runtime a path that opens the region
// (/proc/<quartz pid>/fd/<n>): each program an exec starts can open it again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "format/capture_format.h"

namespace quartz::capture {

inline constexpr char kSharedMagic[8] = {'Q', 'Z', 'S', 'H', 'A', 'R', 'E', '1'};
inline constexpr size_t kSharedHeaderBytes = 4096;
inline constexpr size_t kSlotBytes = size_t{4} << 30;  // as the writer's own buffer
inline constexpr size_t kLogBytes = size_t{1} << 30;
inline constexpr size_t kSharedRegionBytes = kSharedHeaderBytes + 2 * kSlotBytes + 2 * kLogBytes;

struct SharedSlot {
  uint64_t bytes;         // size of the capture
  uint64_t monotonic_ns;  // CLOCK_MONOTONIC when it was made
  char path[512];         // where the runtime writes this capture
  uint64_t log_bytes;     // of whole amended_* sections in its log
};

struct SharedCaptureHeader {
  char magic[8];
  int32_t pid;          // the process it is for (set by `quartz run` before the exec)
  uint32_t published;   // 0: none yet; 1 or 2: slot 0 or 1 holds the latest capture
  uint64_t generation;  // captures published so far
  SharedSlot slots[2];
};
static_assert(sizeof(SharedCaptureHeader) <= kSharedHeaderBytes);

inline constexpr size_t slot_offset(uint32_t slot) {
  return kSharedHeaderBytes + size_t{slot} * kSlotBytes;
}
inline constexpr size_t log_offset(uint32_t slot) {
  return kSharedHeaderBytes + 2 * kSlotBytes + size_t{slot} * kLogBytes;
}

// Moves the amendments logged for the capture in `slot` (`bytes` long, its footer last) in
// before its footer, in place, counted in its header: its new size. Only whole amended_*
// sections are taken; unsealed, as published (seal_capture).
inline size_t take_amendments(unsigned char* slot, size_t bytes, const unsigned char* log,
                              size_t log_bytes) {
  if (bytes < sizeof(FileHeader) + sizeof(FileFooter) || log_bytes > kLogBytes) return bytes;
  size_t taken = 0;
  uint32_t sections = 0;
  while (log_bytes - taken >= sizeof(SectionHeader)) {
    SectionHeader section;
    memcpy(&section, log + taken, sizeof section);
    const size_t payload = taken + sizeof section;
    if (!is_amendment(section.type) || section.bytes > log_bytes - payload) break;
    taken = payload + section.bytes;
    ++sections;
  }
  const size_t footer_at = bytes - sizeof(FileFooter);
  if (taken == 0 || taken > kSlotBytes - bytes) return bytes;
  memmove(slot + footer_at + taken, slot + footer_at, sizeof(FileFooter));
  memcpy(slot + footer_at, log, taken);
  FileHeader header;
  memcpy(&header, slot, sizeof header);
  header.section_count += sections;
  memcpy(slot, &header, sizeof header);
  return bytes + taken;
}

// The capture published in `slot` of the region with its log taken in (take_amendments),
// recorded in the slot so that asking again gives the same capture: its size. Only once the
// program has ended.
inline size_t take_slot_amendments(SharedCaptureHeader& header, uint32_t slot) {
  SharedSlot& s = header.slots[slot];
  auto* region = reinterpret_cast<unsigned char*>(&header);
  s.bytes = take_amendments(region + slot_offset(slot), s.bytes, region + log_offset(slot),
                            __atomic_load_n(&s.log_bytes, __ATOMIC_ACQUIRE));
  s.log_bytes = 0;
  return s.bytes;
}

}  // namespace quartz::capture
