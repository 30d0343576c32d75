// What is system code: the C and C++ runtimes and what the system's headers expand to
// (std::vector, std::thread's trampolines...). The one rule for it offline: the symbolizer
// reads system libraries' symbol tables only, and reports fold system frames into the
// program's own callers (analysis/system_frames.h). The compile side leaves the same
// header directories without hooks (cmake/QuartzInstrument.cmake, quartz_system_header_dirs).
#pragma once

#include <string>

#include "profile/run.h"

namespace quartz::profile {

// A shared library the system installed (the C library, libstdc++, libm...), by where the
// dynamic loader finds them.
bool is_system_library(const std::string& module_path);

// A source file of the system's headers: /usr/include (the C and C++ standard libraries)
// and the compilers' own (/usr/lib/gcc/, /usr/lib/llvm-*).
bool is_system_source(const std::string& file);

// A procedure of system code: its source is a system header, or, without a source file,
// it lies in a system library. Unknown addresses are not (nothing says they are).
bool is_system_code(const Symbol& symbol);

// The run's procedure at `address` is system code (is_system_code of its symbol); an
// address the run has no symbol for is not.
bool is_system_procedure(const Run& run, uint64_t address);

}  // namespace quartz::profile
