#include "runtime/placement.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format/placement_syntax.h"
#include "runtime/placement_order.h"
#include "support/safe_file.h"

namespace quartz::rt {
namespace {

using format::PlacementMember;

// A member copied out of the spec: the environment may change after start-up.
struct StoredMember {
  char text[format::kPlacementMemberBytes + 1] = {};
  format::PlacementMemberKind kind = format::PlacementMemberKind::name;
  uint32_t index = 0;
  uint32_t group = 0;
};

struct Placement {
  bool active = false;
  uint32_t members = 0;
  StoredMember member[format::kPlacementMaxMembers] = {};
  int cpu_of_group[CPU_SETSIZE] = {};
  cpu_set_t allowed = {};  // before any thread was pinned
};

// Written once at start-up, read-only afterwards. Constant-initialised: it is configured
// from our constructor, which may run before this library's dynamic initialisers.
constinit Placement g_placement{};

QUARTZ_NOINSTR void warn(const char* what) {
  char line[256];
  snprintf(line, sizeof line, "quartz: ignoring QUARTZ_PLACEMENT: %s\n", what);
  support::write_message(line);
}

// A number only processor `cpu`'s core has: the first of its hardware threads
// (/sys/devices/system/cpu/cpuN/topology/thread_siblings_list), or `cpu` when unreadable.
QUARTZ_NOINSTR uint32_t core_of(int cpu) {
  char path[96], text[64] = {};
  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return static_cast<uint32_t>(cpu);
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  uint32_t first = 0;
  ssize_t i = 0;
  for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) first = first * 10 + (text[i] - '0');
  return i > 0 ? first : static_cast<uint32_t>(cpu);
}

QUARTZ_NOINSTR PlacementMember view(const StoredMember& stored) {
  PlacementMember m;
  m.kind = stored.kind;
  m.text = std::string_view(stored.text, strlen(stored.text));
  m.index = stored.index;
  m.group = stored.group;
  return m;
}

}  // namespace

bool configure_placement(const char* spec) {
  Placement& p = g_placement;
  p.active = false;
  p.members = 0;
  const format::PlacementSyntax syntax =
      format::parse_placement(std::string_view(spec, strlen(spec)), [&](const PlacementMember& m) {
        StoredMember& stored = p.member[p.members++];
        memcpy(stored.text, m.text.data(), m.text.size());
        stored.text[m.text.size()] = '\0';
        stored.kind = m.kind;
        stored.index = m.index;
        stored.group = m.group;
      });
  if (syntax.error != format::PlacementSyntaxError::none) {
    warn(format::describe(syntax.error));
    return false;
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    warn("cannot read the processors this program may use");
    return false;
  }
  // The groups' processors in rt::order_for_groups's order: one hardware thread of every
  // core before a second of any. Start-up only: static, so the constructor's stack stays small.
  static PlacementProcessor order[CPU_SETSIZE], scratch[CPU_SETSIZE];
  uint32_t n = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &allowed)) order[n++] = {static_cast<uint32_t>(cpu), core_of(cpu), 0};
  }
  order_for_groups(order, n, scratch);
  uint32_t g = 0;
  for (; g < syntax.groups && g < n; ++g) p.cpu_of_group[g] = static_cast<int>(order[g].cpu);
  if (g < syntax.groups) {
    warn("more groups than processors");
    return false;
  }
  p.allowed = allowed;
  p.active = true;
  return true;
}

void place_thread(pid_t tid, uint32_t index, const char* name) {
  const Placement& p = g_placement;
  if (!p.active) return;
  const std::string_view thread_name =
      name ? std::string_view(name, strlen(name)) : std::string_view();
  int group = -1;
  for (uint32_t i = 0; i < p.members && group < 0; ++i) {
    if (format::names_thread(view(p.member[i]), index, thread_name))
      group = static_cast<int>(p.member[i].group);
  }
  for (uint32_t i = 0; i < p.members && group < 0; ++i) {
    if (p.member[i].kind == format::PlacementMemberKind::rest)
      group = static_cast<int>(p.member[i].group);
  }
  if (group < 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(p.cpu_of_group[group], &one);
  sched_setaffinity(tid, sizeof one, &one);
}

bool processors_before_placement(cpu_set_t* out) {
  if (!g_placement.active) return false;
  *out = g_placement.allowed;
  return true;
}

}  // namespace quartz::rt
