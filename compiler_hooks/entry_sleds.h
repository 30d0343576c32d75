// The patchable entries of the program and of its libraries (runtime/patched_entry.h has
// their bytes): found in each object's __patchable_function_entries section and patched on
// at start-up; turned off one by one later.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/patched_entry.h"
#include "support/attributes.h"

namespace quartz::hooks {

struct SledCounts {
  uint32_t patched = 0;     // entries now calling the trampoline
  uint32_t refused = 0;     // listed, but not as the compiler leaves them, or not writable
  uint32_t unselected = 0;  // left off: their functions' names match no pattern asked
};

// The trampolines an entry calls: one for a function that starts at its entry, one for a
// function that starts with endbr64 just before it (-fcf-protection).
struct EntryTrampolines {
  uintptr_t plain;
  uintptr_t after_endbr;
};

inline constexpr size_t kStubPage = 4096;
inline constexpr size_t kStubBytes = 16;  // jmp *0(%rip) and the address

// A page of two stubs, the jumps on to `trampolines.plain` and `.after_endbr` (16 bytes
// apart), mapped within a rel32's reach of all of [low, high), writable until the caller
// protects it. Null when no page that near is free.
QUARTZ_NOINSTR uint8_t* map_stubs(const EntryTrampolines& trampolines, uintptr_t low,
                                  uintptr_t high);

// Writes a patched entry at `sled` (writable, kEntryBytes long) jumping to `stub`, and turns
// it on. False when the stub is out of a rel32's reach.
QUARTZ_NOINSTR bool write_entry(uint8_t* sled, const uint8_t* stub);

// Finds every loaded object's entries and patches them on: all of them, or with
// `procedures` (comma-separated glob patterns, QUARTZ_PROCEDURES) those of the functions
// whose symbol matches one. Once, at start-up, before the program starts threads of its own.
QUARTZ_NOINSTR SledCounts patch_entries(const EntryTrampolines& trampolines,
                                        const char* procedures);

// The patched entry of `procedure` (the address the trampoline reports), or 0 when it has
// none.
QUARTZ_NOINSTR uintptr_t entry_of(uintptr_t procedure);

// Turns the patched entries at `sleds` (entry_of's, sorted) on or off, writing each switch
// byte through /proc/self/mem; where the kernel refuses, by mprotect, the pages from the
// first to the last of one code segment (up to 2 MB apart) made writable once. Returns how
// many were switched.
QUARTZ_NOINSTR size_t switch_entries(const uintptr_t* sleds, size_t count, bool on);

// Turns the entry of `procedure` off; it costs a jump from then on. False when it is not a
// patched entry.
QUARTZ_NOINSTR bool unpatch_entry(uintptr_t procedure);

}  // namespace quartz::hooks
