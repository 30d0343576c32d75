// A thread's processor time and run-queue time, from the kernel's schedstat
// (/proc/self/task/TID/schedstat: on-CPU ns, runnable-but-waiting ns, timeslices). One read
// gives both halves of a busy thread's time that did not run: ready (waiting for a
// processor) as opposed to blocked in the kernel. Costs one open/read/close (~11 µs on the
// development VM), so the sampler reads it once per CPU window, not per snapshot.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include "support/attributes.h"

namespace quartz::support {

struct ThreadCpu {
  uint64_t cpu_ns;
  uint64_t runqueue_ns;
};

// The decimal number after any spaces at `p` (before `end`), for reading the kernel's /proc
// files without allocating: past its last digit, or null when there is none.
QUARTZ_NOINSTR const char* parse_number(const char* p, const char* end, uint64_t* value);

// False when the thread is gone or schedstat is unavailable. Never allocates.
QUARTZ_NOINSTR bool read_thread_cpu(pid_t tid, ThreadCpu* out);

// The processor time of thread `tid` of this process, from its CPU clock: one system call
// (~1.7 µs on the development VM), cheap enough for every snapshot. False when it is gone.
QUARTZ_NOINSTR bool read_thread_clock(pid_t tid, uint64_t* cpu_ns);

// The calling thread's CPU clock (CLOCK_THREAD_CPUTIME_ID): one system call, no tid needed.
// 0 when it cannot be read.
QUARTZ_NOINSTR uint64_t read_own_clock();

}  // namespace quartz::support
