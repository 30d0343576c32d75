// The processor time other processes took from the program's processors during the run
// (issue 9 item 7): the kernel's busy time of those processors (/proc/stat: everything but
// idle and iowait; steal included, a hypervisor's taking) less the program's own
// (CLOCK_PROCESS_CPUTIME_ID, every thread, ended ones and the sampler included). One read
// of each at the start and at each capture; nothing on the sampling path.
#pragma once

#include <sched.h>

#include <cstdint>

#include "support/attributes.h"

namespace quartz::sampler {

struct MachineLoad {
  cpu_set_t processors;  // the program's, at the start
  uint64_t busy_ns = 0;  // of those processors, since boot
  uint64_t own_ns = 0;   // this process's processor time
  bool valid = false;
};

// Reads the busy time of `load->processors` (taken from the main thread's affinity, the program's,
// when `start`) and the process's own time. False when /proc/stat cannot be read.
QUARTZ_NOINSTR bool read_machine_load(MachineLoad* load, bool start);

// Processor time others took between two readings, in ns (0 when unknown).
QUARTZ_NOINSTR uint64_t other_processes_ns(const MachineLoad& start, const MachineLoad& now);

}  // namespace quartz::sampler
