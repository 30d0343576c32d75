// The shared capture: a memory region that `quartz run` makes (a memfd) and the runtime in
// the program fills with its latest capture (capture_format.h), so that when the program
// ends in a way that runs none of its code (SIGKILL, a fatal signal, _exit, abort), the
// parent still writes the run to its capture path (DESIGN.md §3 "Files").
//
//   SharedCaptureHeader   one page
//   slot 0, slot 1        kSlotBytes each: complete captures, written alternately
//
// The writer fills the slot that `published` does not name, then names it: whatever
// instant the program dies, the named slot holds a whole capture. Read only once the
// program has ended (no reader runs while it writes). The environment variable
// QUARTZ_SHARED_CAPTURE gives the runtime a path that opens the region
// (/proc/<quartz pid>/fd/<n>): each program an exec starts can open it again.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quartz::capture {

inline constexpr char kSharedMagic[8] = {'Q', 'Z', 'S', 'H', 'A', 'R', 'E', '1'};
inline constexpr size_t kSharedHeaderBytes = 4096;
inline constexpr size_t kSlotBytes = size_t{4} << 30;  // as the writer's own buffer
inline constexpr size_t kSharedRegionBytes = kSharedHeaderBytes + 2 * kSlotBytes;

struct SharedSlot {
  uint64_t bytes;         // size of the capture
  uint64_t monotonic_ns;  // CLOCK_MONOTONIC when it was made
  char path[512];         // where the runtime writes this capture
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

}  // namespace quartz::capture
