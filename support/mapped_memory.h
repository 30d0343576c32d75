// Zeroed memory straight from the kernel. The runtime never calls malloc: the program's
// allocator may be instrumented, may lock, or may not be initialised yet.
#pragma once

#include <cstddef>

#include "support/attributes.h"

namespace quartz::support {

// Returns `bytes` of zeroed, page-aligned memory, or null. Never released: blocks and
// tables outlive every thread that could still touch them (STYLE: never destroyed).
QUARTZ_NOINSTR void* map_zeroed(size_t bytes);

}  // namespace quartz::support
