// The bytes of a patchable entry (gcc's and clang's -fpatchable-function-entry=15, the
// wrappers' default; docs/design.md "Patched entries"), defined once for the code that
// patches them (compiler_hooks/entry_sleds.cpp) and the code that asks whether a function
// has one on (the OpenMP wrappers).
//
// The compiler leaves 15 bytes of no-ops at the entry of every function that remains after
// inlining (after endbr64, with -fcf-protection). Patched, they jump to the entry
// trampoline with the function's body in r11; turned off, they cost one short jump:
//
//   off:  eb 0d                    jmp over the rest
//   on:   eb 00                    jmp to the next instruction
//         4c 8d 1d 06 00 00 00     lea body(%rip), %r11   (body: the entry's end)
//         e9 <4 bytes>             jmp stub               (a page of stubs near the object
//         cc                                                jumps on to the trampoline)
//
// A jump, not a call: the trampoline calls the body itself, so that the processor's return
// stack predicts the body's return, and the trampoline's own return to the caller
// (compiler_hooks/patched_entries.cpp). On and off differ in one byte, the short jump's
// displacement: a thread running through the entry sees it either on or off, however the
// byte is written (the sampler writes it through /proc/self/mem, which changes no page's
// protection: entry_sleds.cpp).
#pragma once

#include <cstdint>
#include <cstring>

#include "support/attributes.h"

namespace quartz::rt {

inline constexpr uint32_t kEntryBytes = 15;
inline constexpr uint8_t kEndbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};
inline constexpr uint8_t kShortJump = 0xeb;
inline constexpr uint32_t kEntrySwitch = 1;  // the byte that turns an entry on or off
inline constexpr uint8_t kEntryOff = 0x0d;   // over the rest, to the body
inline constexpr uint8_t kEntryOn = 0x00;    // on, to the lea
inline constexpr uint8_t kLoadBody[7] = {0x4c, 0x8d, 0x1d, 6, 0, 0, 0};  // lea 6(%rip), %r11
inline constexpr uint32_t kEntryJump = 9;  // where the jmp to the stub is
inline constexpr uint8_t kJumpRel32 = 0xe9;
inline constexpr uint32_t kEntryJumpEnd = kEntryJump + 5;  // what its rel32 counts from

// Where the time of a call through the trampolines falls, as a sampler sees it: almost all
// of it in the caller (registers are saved before the procedure is pushed, and restored
// after it is popped). Under AddressSanitizer the runtime's own code is instrumented and a
// quarter of a call's time falls between the push and the pop.
#if defined(__SANITIZE_ADDRESS__)
#define QUARTZ_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QUARTZ_UNDER_ASAN 1
#endif
#endif
#ifdef QUARTZ_UNDER_ASAN
inline constexpr double kPatchedCallCalleeShare = 0.25;
#else
inline constexpr double kPatchedCallCalleeShare = 0.0;
#endif

// True when the function at `function` starts with a patched entry that is on: entering
// it is already seen, nobody else need push it.
QUARTZ_ALWAYS_INLINE bool entry_is_on(uintptr_t function) {
  auto* code = reinterpret_cast<const uint8_t*>(function);
  if (memcmp(code, kEndbr64, sizeof kEndbr64) == 0) code += sizeof kEndbr64;
  return code[0] == kShortJump && code[kEntrySwitch] == kEntryOn &&
         memcmp(code + 2, kLoadBody, sizeof kLoadBody) == 0 && code[kEntryJump] == kJumpRel32;
}

}  // namespace quartz::rt
