#include "support/thread_cpu.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

namespace quartz::support {
namespace {

QUARTZ_NOINSTR char* append_number(char* out, uint64_t value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value);
  while (n) *out++ = digits[--n];
  return out;
}

}  // namespace

const char* parse_number(const char* p, const char* end, uint64_t* value) {
  while (p < end && *p == ' ') ++p;
  if (p == end || *p < '0' || *p > '9') return nullptr;
  uint64_t v = 0;
  while (p < end && *p >= '0' && *p <= '9') v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  *value = v;
  return p;
}

bool read_thread_cpu(pid_t tid, ThreadCpu* out) {
  char path[64] = "/proc/self/task/";
  char* end = append_number(path + 16, static_cast<uint64_t>(tid));
  const char suffix[] = "/schedstat";
  for (const char* s = suffix; *s;) *end++ = *s++;
  *end = '\0';
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[96];
  const ssize_t n = read(fd, text, sizeof(text));
  close(fd);
  if (n <= 0) return false;
  const char* p = parse_number(text, text + n, &out->cpu_ns);
  return p && parse_number(p, text + n, &out->runqueue_ns);
}

bool read_thread_clock(pid_t tid, uint64_t* cpu_ns) {
  // The kernel's per-thread scheduler clock (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED)),
  // what pthread_getcpuclockid() returns, built from the tid so no pthread_t is needed.
  const clockid_t clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6);
  timespec ts;
  if (clock_gettime(clock, &ts) != 0) return false;
  *cpu_ns = static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return true;
}

uint64_t read_own_clock() {
  timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace quartz::support
