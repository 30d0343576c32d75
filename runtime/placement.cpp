#include "runtime/placement.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/safe_file.h"

namespace quartz::rt {
namespace {

constexpr int kMaxMembers = 256;
constexpr int kMemberBytes = 32;

struct Member {
  char text[kMemberBytes] = {};
  int group = 0;
};

struct Placement {
  bool active = false;
  int members = 0;
  int groups = 0;
  Member member[kMaxMembers] = {};
  int cpu_of_group[CPU_SETSIZE] = {};
};

// Written once at start-up, read-only afterwards. Constant-initialised: it is configured
// from our constructor, which may run before this library's dynamic initialisers.
constinit Placement g_placement{};

QUARTZ_NOINSTR void warn(const char* what) {
  char line[256];
  snprintf(line, sizeof line, "quartz: ignoring QUARTZ_PLACEMENT: %s\n", what);
  write_message(line);
}

QUARTZ_NOINSTR bool all_digits(const char* s) {
  if (!*s) return false;
  for (; *s; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

QUARTZ_NOINSTR bool matches(const char* pattern, uint32_t index, const char* name) {
  if (all_digits(pattern)) {
    uint64_t n = 0;
    for (const char* p = pattern; *p; ++p) n = n * 10 + static_cast<uint64_t>(*p - '0');
    return n == index;
  }
  if (!name) return false;
  const size_t length = strlen(pattern);
  if (length > 0 && pattern[length - 1] == '*') return strncmp(pattern, name, length - 1) == 0;
  return strcmp(pattern, name) == 0;
}

}  // namespace

bool configure_placement(const char* spec) {
  Placement& p = g_placement;
  p.active = false;
  p.members = 0;
  p.groups = 1;
  int length = 0;
  for (const char* c = spec;; ++c) {
    if (*c == ',' || *c == '|' || *c == '\0') {
      if (length == 0) {
        warn("an empty group or member");
        return false;
      }
      if (p.members == kMaxMembers) {
        warn("too many members");
        return false;
      }
      p.member[p.members].text[length] = '\0';
      p.member[p.members].group = p.groups - 1;
      ++p.members;
      length = 0;
      if (*c == '|') ++p.groups;
      if (*c == '\0') break;
      continue;
    }
    if (*c == ' ') continue;
    if (length + 1 == kMemberBytes) {
      warn("a member name too long");
      return false;
    }
    p.member[p.members].text[length++] = *c;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    warn("cannot read the processors this program may use");
    return false;
  }
  int g = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && g < p.groups; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) p.cpu_of_group[g++] = cpu;
  }
  if (g < p.groups) {
    warn("more groups than processors");
    return false;
  }
  p.active = true;
  return true;
}

void place_thread(pid_t tid, uint32_t index, const char* name) {
  const Placement& p = g_placement;
  if (!p.active) return;
  int group = -1;
  for (int i = 0; i < p.members && group < 0; ++i) {
    if (strcmp(p.member[i].text, "*") != 0 && matches(p.member[i].text, index, name)) {
      group = p.member[i].group;
    }
  }
  for (int i = 0; i < p.members && group < 0; ++i) {
    if (strcmp(p.member[i].text, "*") == 0) group = p.member[i].group;
  }
  if (group < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(p.cpu_of_group[group], &one);
  sched_setaffinity(tid, sizeof one, &one);
}

}  // namespace quartz::rt
