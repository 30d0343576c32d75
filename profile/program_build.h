// How a program was built, as its executable says: the GNU build id (the linker's hash of
// its contents, `readelf -n`) and the compiler that made it (its .comment section), so that
// runs of one build can be found across machines (the store's run_builds).
#pragma once

#include <string>

namespace quartz::profile {

struct ProgramBuild {
  std::string build_id;  // lowercase hex; "" when the executable has none
  std::string compiler;  // "GCC: (Debian 12.2.0-14) 12.2.0"; "" when unknown
};

// What the ELF file at `path` says; empty fields when it cannot be read.
ProgramBuild read_program_build(const std::string& path);

}  // namespace quartz::profile
