// A loaded object's executable segments, as dl_iterate_phdr describes it: the patcher
// (compiler_hooks/entry_sleds.cpp) and the runtime's own code range (runtime/openmp_team.cpp).
#pragma once

#include <link.h>

#include <cstdint>

#include "support/attributes.h"

namespace quartz::support {

// Calls visit(start, end) for each of the object's executable segments, as loaded.
template <typename Visit>
QUARTZ_NOINSTR void for_each_code_segment(const dl_phdr_info* info, Visit&& visit) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    visit(start, start + ph.p_memsz);
  }
}

}  // namespace quartz::support
