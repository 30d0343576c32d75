// Attributes every in-process source uses. The runtime is compiled without
// -finstrument-functions, but anything it exports may be inlined into instrumented code,
// so exported entry points are also marked no_instrument_function (STYLE: uftrace, XRay).
#pragma once

#define QUARTZ_EXPORT extern "C" __attribute__((visibility("default"), no_instrument_function))
#define QUARTZ_NOINSTR __attribute__((no_instrument_function))
#define QUARTZ_ALWAYS_INLINE inline __attribute__((always_inline, no_instrument_function))
#define QUARTZ_NOINLINE __attribute__((noinline, no_instrument_function))
#define QUARTZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define QUARTZ_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace quartz::support {
inline constexpr unsigned kCacheLine = 64;
}
