// The runtime side of quartz/quartz.h.
#include <string.h>

#include "runtime/interpose.h"
#include "runtime/placement.h"

using namespace quartz::rt;
namespace support = quartz::support;
namespace trace = quartz::trace;

namespace {
// The open spin region of this thread (regions do not nest).
__thread Wait t_spin_region __attribute__((tls_model("initial-exec")));
__thread bool t_in_spin_region __attribute__((tls_model("initial-exec")));
}  // namespace

QUARTZ_EXPORT void quartz_runtime_spin_begin(const volatile void* object) {
  ThreadBlock* block = current_block();
  if (!block || t_in_spin_region) return;
  const uintptr_t site = QUARTZ_CALL_SITE();
  const uintptr_t address = object ? reinterpret_cast<uintptr_t>(object) : site;
  runtime().objects.find_or_insert(address, EntryKind::spin_region, site);
  t_spin_region =
      begin_wait(*block, address, EntryKind::spin_region, ThreadState::spinning, support::ticks());
  t_in_spin_region = true;
  if (block->trace) {
    record_event(*block, trace::Type::spin_begin, EntryKind::spin_region, address, 0, 0,
                 t_spin_region.started_ticks);
  }
}

QUARTZ_EXPORT void quartz_runtime_spin_end(const volatile void* /*object*/) {
  ThreadBlock* block = t_local.block;
  if (!block || !t_in_spin_region) return;
  t_in_spin_region = false;
  const uint64_t now = support::ticks();
  end_wait(*block, runtime().objects, t_spin_region, WaitOutcome::waited, QUARTZ_CALL_SITE(), now);
  if (block->trace) {
    record_event(*block, trace::Type::spin_end, EntryKind::spin_region, t_spin_region.object, 0, 0,
                 now);
  }
}

QUARTZ_EXPORT void quartz_runtime_name_object(const volatile void* object, const char* name) {
  if (!object || !name || !current_block()) return;
  runtime().objects.set_name(reinterpret_cast<uintptr_t>(object), name);
}

namespace quartz::rt {
void name_current_thread(const char* name, bool annotated) {
  if (ThreadBlock* block = current_block()) {
    if (ThreadRecord* record = runtime().history.at(block->index)) {
      if (annotated) {
        ThreadHistory::set_annotated_name(*record, name);
      } else {
        ThreadHistory::set_given_name(*record, name);
      }
    }
    place_thread(0, block->index, name);
  }
}
}  // namespace quartz::rt

QUARTZ_EXPORT void quartz_runtime_name_thread(const char* name) {
  if (!name) return;
  // The kernel's name too, so tools that read /proc agree with the report.
  char comm[kThreadNameBytes] = {};
  strncpy(comm, name, sizeof(comm) - 1);
  if (have_real<real::pthread_setname_np>()) real::pthread_setname_np(pthread_self(), comm);
  name_current_thread(name, false);
}
