#include "sampler/publish/machine_load.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "support/thread_cpu.h"

namespace quartz::sampler {
namespace {

// The busy ticks of one "cpuN" line's fields: user nice system idle iowait irq softirq
// steal (guest time is already in user).
QUARTZ_NOINSTR bool busy_ticks(const char* p, const char* end, uint64_t* busy) {
  uint64_t field[8];
  for (uint64_t& f : field) {
    p = support::parse_number(p, end, &f);
    if (!p) return false;
  }
  *busy = field[0] + field[1] + field[2] + field[5] + field[6] + field[7];
  return true;
}

}  // namespace

bool read_machine_load(MachineLoad* load, bool start) {
  if (start) {
    CPU_ZERO(&load->processors);
    if (sched_getaffinity(getpid(), sizeof load->processors, &load->processors) != 0) {
      return load->valid = false;
    }
  }
  // Statically sized: the sampler allocates nothing once running. 64 KiB holds the lines
  // of ~600 processors; a bigger machine's later ones are left out.
  static char text[1 << 16];
  const int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return load->valid = false;
  ssize_t n = 0;
  for (ssize_t got; n < static_cast<ssize_t>(sizeof text) &&
                    (got = read(fd, text + n, sizeof text - static_cast<size_t>(n))) > 0;) {
    n += got;
  }
  close(fd);
  const long hz = sysconf(_SC_CLK_TCK);
  if (n <= 0 || hz <= 0) return load->valid = false;
  uint64_t busy = 0;
  const char* end = text + n;
  for (const char* line = text; line < end;) {
    const char* next = line;
    while (next < end && *next != '\n') ++next;
    // "cpuN ..." lines; the first, "cpu ...", is the total of all processors.
    if (next - line > 4 && line[0] == 'c' && line[1] == 'p' && line[2] == 'u' && line[3] != ' ') {
      uint64_t cpu = 0, ticks = 0;
      const char* p = support::parse_number(line + 3, next, &cpu);
      if (p && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &load->processors) &&
          busy_ticks(p, next, &ticks)) {
        busy += ticks;
      }
    }
    line = next + 1;
  }
  timespec own{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &own);
  load->busy_ns = busy * (1'000'000'000u / static_cast<uint64_t>(hz));
  load->own_ns =
      static_cast<uint64_t>(own.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(own.tv_nsec);
  return load->valid = true;
}

uint64_t other_processes_ns(const MachineLoad& start, const MachineLoad& now) {
  if (!start.valid || !now.valid || now.busy_ns < start.busy_ns) return 0;
  const uint64_t busy = now.busy_ns - start.busy_ns;
  const uint64_t own = now.own_ns > start.own_ns ? now.own_ns - start.own_ns : 0;
  return busy > own ? busy - own : 0;
}

}  // namespace quartz::sampler
